fn main() {
    for i in 0..10 {
        if i == 5 {
            break i; //~ ERROR `break` with value from a `for` loop
        }
    }
}

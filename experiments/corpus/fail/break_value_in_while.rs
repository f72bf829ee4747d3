fn main() {
    let mut i = 0;
    let x = while i < 10 {
        i += 1;
        if i == 5 {
            break i; //~ ERROR `break` with value from a `while` loop
        }
    };
    println!("{}", i);
}

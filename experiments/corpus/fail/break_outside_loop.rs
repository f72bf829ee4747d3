fn main() {
    let x = 3;
    if x > 2 {
        break; //~ ERROR `break` outside of a loop or labeled block
    }
}

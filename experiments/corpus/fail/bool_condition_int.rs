fn main() {
    let n = 3;
    if n { //~ ERROR mismatched types
        println!("nonzero");
    }
}

// rustc: accepts
fn main() {
    let x = 3;
    if let 3 = x { //~ ERROR unsupported
        println!("three");
    }
}

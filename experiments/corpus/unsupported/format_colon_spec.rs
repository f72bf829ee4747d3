// rustc: accepts
fn main() {
    println!("{:}", 5); //~ ERROR unsupported
}

// rustc: accepts
fn main() {
    let t = (1, 2); //~ ERROR unsupported
    println!("{}", t.0);
}

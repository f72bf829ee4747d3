// rustc: accepts
fn main() {
    let x = 1e3; //~ ERROR unsupported
    println!("{}", x);
}

// rustc: accepts
fn main() {
    let x: _ = 5; //~ ERROR unsupported
    println!("{}", x);
}

// rustc: accepts
fn main() {
    let a = [1, 2];
    let b = [1, 2];
    println!("{}", a == b); //~ ERROR unsupported
}

// rustc: accepts
fn main() {
    let s = "hello"; //~ ERROR unsupported
    println!("{}", s);
}

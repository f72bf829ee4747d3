// rustc: accepts
fn main() {
    let m = std::i32::MAX; //~ ERROR unsupported
    println!("{}", m);
}

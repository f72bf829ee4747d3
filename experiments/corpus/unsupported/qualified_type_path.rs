// rustc: accepts
fn main() {
    println!("{}", <i64>::MAX); //~ ERROR unsupported
}

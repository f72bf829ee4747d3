// rustc: accepts
fn main() {
    let c = 'a'; //~ ERROR unsupported
    println!("{}", c);
}

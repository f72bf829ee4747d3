// rustc: accepts
fn main() {
    let half = 0.5; //~ ERROR unsupported
    println!("{}", half);
}

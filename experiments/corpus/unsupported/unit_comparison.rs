// rustc: accepts
fn main() {
    let u = ();
    println!("{}", u == ()); //~ ERROR unsupported
}

// rustc: accepts
fn main() {
    let b: u8 = 255; //~ ERROR unsupported
    println!("{}", b);
}

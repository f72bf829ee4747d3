// rustc: accepts
fn main() {
    let x: i32 = i32::MAX;
    println!("{}", x.wrapping_add(1)); //~ ERROR unsupported
}

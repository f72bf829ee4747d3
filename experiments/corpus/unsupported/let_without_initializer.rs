// rustc: accepts
fn main() {
    let x: i32; //~ ERROR unsupported
    x = 5;
    println!("{}", x);
}

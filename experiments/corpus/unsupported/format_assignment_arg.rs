// rustc: accepts
fn main() {
    let mut x = 1;
    println!("{}", { x = 5; x }); //~ ERROR unsupported
}

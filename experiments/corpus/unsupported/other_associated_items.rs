// rustc: accepts
// Only MIN and MAX are associated items in Rill.
fn main() {
    println!("{}", i32::BITS); //~ ERROR unsupported
}

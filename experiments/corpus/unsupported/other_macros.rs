// rustc: accepts
fn main() {
    print!("no newline"); //~ ERROR unsupported
    println!();
}

// rustc: accepts
fn main() {
    let r#fn = 1; //~ ERROR unsupported
    println!("{}", r#fn); //~ ERROR unsupported
}

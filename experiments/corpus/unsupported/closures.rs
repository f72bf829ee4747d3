// rustc: accepts
fn main() {
    let inc = |x: i32| x + 1; //~ ERROR unsupported
    println!("{}", inc(1));
}

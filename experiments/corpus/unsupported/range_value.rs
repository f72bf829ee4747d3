// rustc: accepts
fn main() {
    let r = 0..3; //~ ERROR unsupported
    let mut n = 0;
    for _ in r {
        n += 1;
    }
    println!("{}", n);
}

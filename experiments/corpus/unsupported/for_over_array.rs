// rustc: accepts
fn main() {
    let a = [1, 2, 3];
    let mut s = 0;
    for x in a { //~ ERROR unsupported
        s += x;
    }
    println!("{}", s);
}

// rustc: accepts
type usize = u64; //~ ERROR unsupported

fn main() {
    let x: usize = 1;
    println!("{}", x);
}

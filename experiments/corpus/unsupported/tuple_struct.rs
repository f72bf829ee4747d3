// rustc: accepts
#[derive(Clone, Copy)]
struct Meters(i64); //~ ERROR unsupported

fn main() {
    let m = Meters(5);
    println!("{}", m.0);
}

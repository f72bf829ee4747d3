// rustc: accepts
#[derive(Clone, Copy, PartialEq)] //~ ERROR unsupported
struct P {
    x: i32,
}

fn main() {
    let p = P { x: 1 };
    println!("{}", p.x);
}

// rustc: accepts
#[derive(Clone, Copy)]
struct P {
    x: i32,
    y: i32,
}

fn main() {
    let a = P { x: 1, y: 2 };
    let b = P { x: 5, ..a }; //~ ERROR unsupported
    println!("{} {}", b.x, b.y);
}

// rustc: rejects
#[derive(Clone, Copy)]
struct P {
    x: i32,
}

fn main() {
    let a = P { x: 1 };
    let b = P { x: 1 };
    println!("{}", a == b); //~ ERROR unsupported
}

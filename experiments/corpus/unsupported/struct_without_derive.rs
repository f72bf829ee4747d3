// rustc: accepts
struct P { //~ ERROR unsupported
    x: i32,
}

fn main() {
    let p = P { x: 1 };
    println!("{}", p.x);
}

#[derive(Clone, Copy)]
struct P {
    x: i32,
    x: i64, //~ ERROR field `x` is already declared
}

fn main() {
    println!("{}", 1);
}

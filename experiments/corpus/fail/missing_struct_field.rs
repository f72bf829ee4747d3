#[derive(Clone, Copy)]
struct P {
    x: i32,
    y: i32,
}

fn main() {
    let p = P { x: 1 }; //~ ERROR missing field `y` in initializer of `P`
    println!("{}", p.x);
}

#[derive(Clone, Copy)]
struct P {
    x: i32,
    y: i32,
}

fn main() {
    let p = P { x: 1, y: 2 };
    println!("{}", p.z); //~ ERROR no field `z` on type `P`
}

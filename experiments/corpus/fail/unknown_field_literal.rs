#[derive(Clone, Copy)]
struct P {
    x: i32,
    y: i32,
}

fn main() {
    let p = P { x: 1, y: 2, z: 3 }; //~ ERROR struct `P` has no field named `z`
    println!("{}", p.x);
}

#[derive(Clone, Copy)]
struct P {
    x: i32,
    y: i32,
}

fn main() {
    let p = P { x: 1, y: 2 };
    p.x = 5; //~ ERROR cannot assign to `p.x`, as `p` is not declared as mutable
    println!("{} {}", p.x, p.y);
}

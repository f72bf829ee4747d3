#[derive(Clone, Copy)]
struct P {
    x: i32,
}

fn main() {
    let p = P { x: 1 };
    println!("{}", p); //~ ERROR `P` doesn't implement `std::fmt::Display`
}

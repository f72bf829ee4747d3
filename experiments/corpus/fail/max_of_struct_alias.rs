// Only integer types (and their aliases) have MIN and MAX.

#[derive(Clone, Copy)]
struct P {
    x: i32,
}

type Q = P;

fn main() {
    println!("{}", Q::MAX); //~ ERROR no associated item named `MAX` found for struct `P` in the current scope
}

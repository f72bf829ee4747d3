fn bump(x: i32) -> i32 {
    x = x + 1; //~ ERROR cannot assign to immutable argument `x`
    x
}

fn main() {
    println!("{}", bump(1));
}

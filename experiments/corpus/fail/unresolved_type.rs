fn area(s: Square) -> i32 { //~ ERROR cannot find type `Square` in this scope
    0
}

fn main() {
    println!("{}", 1);
}

fn add(a: i32, a: i32) -> i32 { //~ ERROR identifier `a` is bound more than once in this parameter list
    a
}

fn main() {
    println!("{}", add(1, 2));
}

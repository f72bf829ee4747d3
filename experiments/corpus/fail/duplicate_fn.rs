fn f() -> i32 {
    1
}

fn f() -> i32 { //~ ERROR the name `f` is defined multiple times
    2
}

fn main() {
    println!("{}", f());
}

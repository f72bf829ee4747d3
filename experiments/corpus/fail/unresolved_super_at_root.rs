fn f() -> i32 {
    super::g() //~ ERROR too many leading `super` keywords
}

fn g() -> i32 {
    1
}

fn main() {
    println!("{}", f());
}

// A const and a fn share the value namespace.

const value: i32 = 1;

fn value() -> i32 { //~ ERROR the name `value` is defined multiple times
    2
}

fn main() {
    println!("{}", value);
}

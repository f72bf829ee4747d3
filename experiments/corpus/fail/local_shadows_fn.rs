// Locals live in the value namespace and shadow functions.

fn f() -> i32 {
    1
}

fn main() {
    let f = 2;
    println!("{}", f()); //~ ERROR expected function, found `{integer}`
}

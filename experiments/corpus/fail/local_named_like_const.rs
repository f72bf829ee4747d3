// A `let` binding named like a constant in scope is a pattern that compares with it.

const LIMIT: i32 = 10;

fn main() {
    let LIMIT = 5; //~ ERROR refutable pattern in local binding
    println!("{}", LIMIT);
}

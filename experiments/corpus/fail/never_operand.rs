// An unconstrained `!` becomes `()`, so it cannot be an operand of `+`.

fn f() -> i32 {
    let y = 1 + { return 3; }; //~ ERROR cannot add `()` to `i32`
    y
}

fn main() {
    println!("{}", f());
}

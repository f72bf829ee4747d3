// A body that can fall off its end with a `()` value does not have type i32, even if every
// loop iteration returns.

fn f(c: bool) -> i32 {
    while c { //~ ERROR mismatched types
        return 1;
    }
}

fn main() {
    println!("{}", f(true));
}

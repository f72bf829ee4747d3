fn f(x: i64) -> i32 {
    if x > 0 {
        return x; //~ ERROR mismatched types
    }
    0
}

fn main() {
    println!("{}", f(1));
}

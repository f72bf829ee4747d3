// After `as T`, `<` starts generic arguments: write `(x as i64) < y`.

fn main() {
    let x: i32 = 1;
    let y: i64 = 2;
    if x as i64 < y { //~ ERROR `<` is interpreted as a start of generic arguments for `i64`, not a comparison
        println!("less");
    }
}

fn main() {
    let c = true;
    let x: i32 = if c { 1 }; //~ ERROR `if` may be missing an `else` clause
    println!("{}", x);
}

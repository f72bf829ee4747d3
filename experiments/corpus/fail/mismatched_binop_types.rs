fn main() {
    let a: i32 = 1;
    let b: i64 = 2;
    println!("{}", a + b); //~ ERROR mismatched types
    //~^ ERROR cannot add `i64` to `i32`
}

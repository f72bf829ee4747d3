fn main() {
    let x: i32 = 1;
    println!("{}", x << true); //~ ERROR no implementation for `i32 << bool`
}

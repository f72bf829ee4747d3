fn main() {
    let x = 2147483648; //~ ERROR literal out of range for `i32`
    println!("{}", x);
}

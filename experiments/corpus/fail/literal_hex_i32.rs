// Hex literals are not reinterpreted as negative numbers.

fn main() {
    let x: i32 = 0xFFFF_FFFF; //~ ERROR literal out of range for `i32`
    println!("{}", x);
}

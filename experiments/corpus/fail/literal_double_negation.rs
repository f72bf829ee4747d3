// Only the direct operand of a single unary minus may be one past the maximum.

fn main() {
    let a = -2147483648;
    let b = -(-2147483648); //~ ERROR literal out of range for `i32`
    println!("{} {}", a, b);
}

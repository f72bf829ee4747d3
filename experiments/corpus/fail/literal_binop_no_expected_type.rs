// The cast's type does not flow into the operands of `+`: the sum is i32.

fn main() {
    let a = 3000000000 as i64;
    let b = (3000000000 + 0) as i64; //~ ERROR literal out of range for `i32`
    println!("{} {}", a, b);
}

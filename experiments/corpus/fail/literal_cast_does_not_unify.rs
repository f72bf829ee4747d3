// A cast does not unify its operand's type: `x` stays i32, and the literal is out of range.

fn main() {
    let x = 3000000000; //~ ERROR literal out of range for `i32`
    let y = x as i64;
    println!("{}", y);
}

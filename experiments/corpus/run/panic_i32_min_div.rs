// i32::MIN / -1 overflows and panics even with overflow checks off.

fn div(a: i32, b: i32) -> i32 {
    a / b
}

fn main() {
    println!("i32::MIN / 1 = {}", div(i32::MIN, 1));
    println!("i32::MIN / -2 = {}", div(i32::MIN, -2));
    println!("(i32::MIN + 1) / -1 = {}", div(i32::MIN + 1, -1));
    println!("i32::MIN / -1 = {}", div(i32::MIN, -1));
    println!("not reached");
}

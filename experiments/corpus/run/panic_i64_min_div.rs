// i64::MIN / -1 panics; the same values as u64 divide fine.

fn main() {
    let a: i64 = i64::MIN;
    let b: i64 = -1;
    println!("as u64: {}", a as u64 / b as u64);
    println!("i64::MIN / 2 = {}", a / 2);
    let mut x = a;
    x /= b;
    println!("not reached {}", x);
}

pub mod deep;

pub const LIMIT: u64 = 1 << 20;
pub const ZERO: i64 = 0;

pub fn gcd(a: i64, b: i64) -> i64 {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

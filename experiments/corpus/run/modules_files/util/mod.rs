//! Utilities: a `mod.rs` file module, whose children live next to it.

pub mod math;

pub const SCALED_LIMIT: u64 = math::LIMIT * 10;

pub fn lcm(a: i64, b: i64) -> i64 {
    a / math::gcd(a, b) * b
}

pub fn call_root() -> i32 {
    crate::root_helper() + self::math::deep::deepest()
}

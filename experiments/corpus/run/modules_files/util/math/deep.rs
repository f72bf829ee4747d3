/// Three levels down: `util/math/deep.rs`.
pub fn deepest() -> i32 {
    super::gcd(12, 18) as i32 + crate::util::math::deep::helper()
}

fn helper() -> i32 {
    30
}

#[derive(Clone, Copy)]
pub struct Square {
    pub side: i64,
}

pub fn area(s: Square) -> i64 {
    s.side * s.side + super::super::util::math::ZERO
}

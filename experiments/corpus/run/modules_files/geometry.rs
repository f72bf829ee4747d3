//! Geometry: a file module with a child module in `geometry/shapes.rs`.

pub mod shapes;

pub const UNIT: shapes::Square = shapes::Square { side: 1 };

pub fn perimeter(s: shapes::Square) -> i64 {
    4 * s.side
}

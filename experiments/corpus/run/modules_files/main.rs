// File modules: `mod a;` loads `a.rs` or `a/mod.rs`; a module's children live in its
// directory (`geometry.rs` -> `geometry/`, `util/mod.rs` -> `util/`, and an inline
// `mod inline_outer { mod inner_file; }` -> `inline_outer/inner_file.rs`).

mod geometry;
mod util;

mod inline_outer {
    pub mod inner_file;

    pub fn through_inline() -> i32 {
        inner_file::answer() + 1
    }
}

use geometry::shapes::Square;

fn main() {
    let s = Square { side: 7 };
    println!("square area = {}", geometry::shapes::area(s));
    println!("perimeter = {}", geometry::perimeter(s));
    println!("unit square area = {}", geometry::shapes::area(geometry::UNIT));
    println!("gcd(84, 36) = {}", util::math::gcd(84, 36));
    println!("lcm(4, 6) = {}", util::lcm(4, 6));
    println!("deep = {}", util::math::deep::deepest());
    println!("LIMIT = {}, SCALED_LIMIT = {}", util::math::LIMIT, util::SCALED_LIMIT);
    println!("inline answer = {}, through inline = {}", inline_outer::inner_file::answer(), inline_outer::through_inline());
    println!("root helper via crate path from a file module = {}", util::call_root());
}

fn root_helper() -> i32 {
    1000
}

// `use` declarations: single paths, `as` renames, braces, nested braces, importing a module
// and an item from it, `pub use` re-exports, and imports being local to their module.

use shapes::{Circle, area as circle_area, consts::{PI_TIMES_1000, UNITS as U}};
use shapes::consts;
use util::helpers;
use util::helpers::double;
use api::{make_circle, Radius};
use crate::util::helpers::triple as thrice;

mod shapes {
    #[derive(Clone, Copy)]
    pub struct Circle {
        pub r: i64,
    }

    pub fn area(c: Circle) -> i64 {
        c.r * c.r * consts::PI_TIMES_1000 / 1000
    }

    pub mod consts {
        pub const PI_TIMES_1000: i64 = 3141;
        pub const UNITS: i64 = 1000;
    }
}

mod util {
    pub mod helpers {
        pub fn double(x: i64) -> i64 {
            x * 2
        }

        pub fn triple(x: i64) -> i64 {
            x * 3
        }
    }
}

// A facade that re-exports items from elsewhere under its own paths.
mod api {
    pub use super::shapes::Circle as Disk;
    pub use crate::util::helpers::double;
    pub type Radius = i64;

    pub fn make_circle(r: Radius) -> Disk {
        Disk { r: double(r) / 2 }
    }

    pub mod nested {
        pub use super::make_circle as build;
    }
}

mod user {
    // This module's scope is separate: it imports what it needs itself.
    use crate::api::{nested::build, Disk};
    use super::shapes;

    pub fn make_and_measure(r: i64) -> i64 {
        let d: Disk = build(r);
        shapes::area(d)
    }
}

fn main() {
    let c = Circle { r: 10 };
    println!("circle_area = {}", circle_area(c));
    println!("PI_TIMES_1000 = {}, U = {}, consts::UNITS = {}", PI_TIMES_1000, U, consts::UNITS);
    println!("double = {}, helpers::triple = {}, thrice = {}", double(21), helpers::triple(5), thrice(7));
    let r: Radius = 3;
    let m = make_circle(r);
    println!("make_circle(3).r = {}", m.r);
    let d = api::Disk { r: 2 };
    println!("api::Disk area = {}", shapes::area(d));
    println!("api::double = {}", api::double(50));
    println!("user::make_and_measure(4) = {}", user::make_and_measure(4));
    println!("nested re-export = {}", api::nested::build(6).r);
}

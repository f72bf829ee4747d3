// Inline modules nested three deep, with `self::`, `super::` and `crate::` paths, and items
// used before their definition.

fn main() {
    println!("a::value() = {}", a::value());
    println!("a::b::value() = {}", a::b::value());
    println!("a::b::c::value() = {}", a::b::c::value());
    println!("a::b::c::sum() = {}", a::b::c::sum());
    println!("crate::top() = {}", crate::top());
    println!("self::top() = {}", self::top());
    println!("sibling = {}", sibling::from_sibling());
    println!("consts: {} {} {}", a::A, a::b::B, a::b::c::C);
}

const BASE: i32 = 1;

fn top() -> i32 {
    1
}

pub mod a {
    pub const A: i32 = super::BASE * 10;

    pub fn value() -> i32 {
        self::b::value() * 10
    }

    pub mod b {
        pub const B: i32 = super::A + 10;

        pub fn value() -> i32 {
            c::value() + 1
        }

        pub mod c {
            pub const C: i32 = super::B + super::super::A;

            pub fn value() -> i32 {
                crate::top() + 1
            }

            pub fn sum() -> i32 {
                self::value() + super::value() + super::super::value() + crate::a::b::c::C
            }
        }
    }
}

mod sibling {
    pub fn from_sibling() -> i32 {
        super::a::b::c::value() * 100 + crate::a::A
    }
}

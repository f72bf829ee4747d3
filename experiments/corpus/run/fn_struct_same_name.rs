// Functions and structs live in different namespaces, so they may share a name; so may
// a module and a function, and a constant and a type alias. `use` imports every namespace.

#[derive(Clone, Copy)]
struct Point {
    x: i32,
    y: i32,
}

fn Point(x: i32, y: i32) -> Point {
    Point { x, y }
}

mod shapes {
    #[derive(Clone, Copy)]
    pub struct Size {
        pub w: i64,
        pub h: i64,
    }

    pub fn Size(side: i64) -> Size {
        Size { w: side, h: side }
    }
}

use shapes::Size;

mod helper {
    pub fn double(x: i32) -> i32 {
        x * 2
    }
}

fn helper(x: i32) -> i32 {
    helper::double(x) + 1
}

type Limit = u64;
const Limit: Limit = 500;

fn main() {
    let p = Point(3, 4);
    let q: Point = Point { x: -1, y: p.y };
    println!("p = ({}, {}), q = ({}, {})", p.x, p.y, q.x, q.y);
    let s: Size = Size(9);
    let t = Size { w: 2, h: 3 };
    println!("s = {}x{}, t = {}x{}", s.w, s.h, t.w, t.h);
    println!("helper(5) = {}, helper::double(5) = {}", helper(5), helper::double(5));
    let l: Limit = Limit + 1;
    println!("Limit = {}, l = {}", Limit, l);
}

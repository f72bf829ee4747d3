mod a {
    pub fn f() -> i32 {
        1
    }
}

mod b {
    pub fn f() -> i32 {
        2
    }
}

use a::f;
use b::f; //~ ERROR the name `f` is defined multiple times

fn main() {
    println!("{}", f());
}

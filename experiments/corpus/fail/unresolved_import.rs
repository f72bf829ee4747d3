mod m {
    pub fn f() -> i32 {
        1
    }
}

use m::g; //~ ERROR unresolved import `m::g`

fn main() {
    println!("{}", m::f());
}

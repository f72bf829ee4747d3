// rustc: accepts
mod m {
    pub fn f() -> i32 {
        1
    }
}

use m::*; //~ ERROR unsupported

fn main() {
    println!("{}", f());
}

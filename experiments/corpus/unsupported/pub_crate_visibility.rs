// rustc: accepts
mod m {
    pub(crate) fn f() -> i32 { //~ ERROR unsupported
        1
    }
}

fn main() {
    println!("{}", m::f());
}

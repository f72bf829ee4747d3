mod m {
    pub fn f() -> i32 {
        1
    }
}

mod m { //~ ERROR the name `m` is defined multiple times
    pub fn g() -> i32 {
        2
    }
}

fn main() {
    println!("{}", m::f());
}

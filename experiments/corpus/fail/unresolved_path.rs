mod m {
    pub fn f() -> i32 {
        1
    }
}

fn main() {
    println!("{}", m::g()); //~ ERROR cannot find function `g` in module `m`
}

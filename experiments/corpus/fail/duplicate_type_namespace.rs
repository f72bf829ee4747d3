// A type alias and a module share the type namespace.

type Meters = i64;

mod Meters { //~ ERROR the name `Meters` is defined multiple times
    pub fn f() -> i32 {
        1
    }
}

fn main() {
    let m: Meters = 5;
    println!("{}", m);
}

// A module's scope holds only its own items and imports: the parent's items need a path.

fn helper() -> i32 {
    1
}

mod child {
    pub fn f() -> i32 {
        helper() //~ ERROR cannot find function `helper` in this scope
    }
}

fn main() {
    println!("{}", child::f());
}

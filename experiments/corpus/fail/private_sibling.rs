// Private items are visible to descendants, not to siblings.

mod a {
    fn only_for_a() -> i32 {
        1
    }
}

mod b {
    pub fn f() -> i32 {
        super::a::only_for_a() //~ ERROR function `only_for_a` is private
    }
}

fn main() {
    println!("{}", b::f());
}

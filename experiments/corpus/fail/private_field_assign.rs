mod m {
    #[derive(Clone, Copy)]
    pub struct Counter {
        value: i32,
    }

    pub fn new() -> Counter {
        Counter { value: 0 }
    }
}

fn main() {
    let mut c = m::new();
    c.value = 5; //~ ERROR field `value` of struct `Counter` is private
}

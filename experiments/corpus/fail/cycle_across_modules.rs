mod m {
    pub const A: i32 = super::n::B + 1; //~ ERROR cycle detected when
}
mod n {
    pub const B: i32 = super::m::A + super::C;
}
const C: i32 = D; //~ ERROR cycle detected when
const D: i32 = C;

fn main() {
    println!("{}", m::A);
}

// `mod x;` with both `x.rs` and `x/mod.rs` present is ambiguous.

mod x; //~ ERROR file for module `x` found at both

fn main() {
    println!("{}", x::f());
}

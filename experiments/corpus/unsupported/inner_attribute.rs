// rustc: accepts
#![allow(dead_code)] //~ ERROR unsupported

fn main() {
    println!("{}", 1);
}

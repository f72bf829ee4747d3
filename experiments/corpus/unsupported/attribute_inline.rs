// rustc: accepts
#[inline] //~ ERROR unsupported
fn f() -> i32 {
    1
}

fn main() {
    println!("{}", f());
}

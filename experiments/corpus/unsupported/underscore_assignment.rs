// rustc: accepts
fn f() -> i32 {
    1
}

fn main() {
    _ = f(); //~ ERROR unsupported
}

// rustc: accepts
fn bool() -> i32 { //~ ERROR unsupported
    1
}

fn main() {
    println!("{}", bool());
}

// rustc: accepts
fn main() {
    fn helper() -> i32 { //~ ERROR unsupported
        1
    }
    println!("{}", helper());
}

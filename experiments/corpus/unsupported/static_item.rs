// rustc: accepts
static LIMIT: i32 = 10; //~ ERROR unsupported

fn main() {
    println!("{}", LIMIT);
}

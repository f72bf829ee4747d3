const LIMIT: i32 = 5i64; //~ ERROR mismatched types

fn main() {
    println!("{}", LIMIT);
}

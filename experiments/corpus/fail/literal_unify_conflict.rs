// An unsuffixed literal's type variable unifies with the first type it meets.

fn main() {
    let x = 5;
    let a: u64 = x;
    let b: i64 = x; //~ ERROR mismatched types
    println!("{} {}", a, b);
}

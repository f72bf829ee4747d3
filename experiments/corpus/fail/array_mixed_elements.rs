fn main() {
    let a = [1, 2u64, 3i64]; //~ ERROR mismatched types
    println!("{}", a[0]);
}

fn half(x: u64) -> u64 {
    x / 2
}

fn main() {
    let v: i64 = 10;
    println!("{}", half(v)); //~ ERROR mismatched types
}

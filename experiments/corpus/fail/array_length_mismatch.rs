fn main() {
    let a: [i32; 3] = [1, 2]; //~ ERROR mismatched types
    println!("{}", a[0]);
}

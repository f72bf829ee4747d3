fn main() {
    let x: i32 = 1;
    let y = x as u64 << 3; //~ ERROR `<<` is interpreted as a start of generic arguments for `u64`, not a shift
    println!("{}", y);
}

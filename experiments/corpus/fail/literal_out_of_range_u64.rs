fn main() {
    let x: u64 = 18446744073709551616; //~ ERROR literal out of range for `u64`
    println!("{}", x);
}

fn main() {
    let a: u64 = 5;
    println!("{}", -a); //~ ERROR cannot apply unary operator `-` to type `u64`
}

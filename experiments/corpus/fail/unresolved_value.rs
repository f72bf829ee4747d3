fn main() {
    let a = 1;
    println!("{}", a + b); //~ ERROR cannot find value `b` in this scope
}

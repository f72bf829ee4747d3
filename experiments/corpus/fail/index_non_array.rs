fn main() {
    let x: i32 = 5;
    println!("{}", x[0]); //~ ERROR cannot index into a value of type `i32`
}

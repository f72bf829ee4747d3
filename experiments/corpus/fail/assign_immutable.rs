fn main() {
    let x = 1;
    println!("{}", x);
    x = 2; //~ ERROR cannot assign twice to immutable variable `x`
    println!("{}", x);
}

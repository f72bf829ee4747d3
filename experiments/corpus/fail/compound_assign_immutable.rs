fn main() {
    let total = 0;
    for i in 0..3 {
        total += i; //~ ERROR cannot assign twice to immutable variable `total`
    }
    println!("{}", total);
}

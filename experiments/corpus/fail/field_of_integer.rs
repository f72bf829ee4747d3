fn main() {
    let n: i64 = 5;
    println!("{}", n.value); //~ ERROR `i64` is a primitive type and therefore doesn't have fields
}

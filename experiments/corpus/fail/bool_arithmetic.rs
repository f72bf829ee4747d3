fn main() {
    let t = true;
    println!("{}", t + 1); //~ ERROR cannot add `{integer}` to `bool`
}

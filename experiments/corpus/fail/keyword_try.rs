fn main() {
    let try = 1; //~ ERROR expected identifier, found reserved keyword `try`
    println!("{}", 1);
}

fn main() {
    println!("{}", 1, 2); //~ ERROR argument never used
}

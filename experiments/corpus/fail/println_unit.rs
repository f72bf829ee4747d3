fn nothing() {}

fn main() {
    println!("{}", nothing()); //~ ERROR `()` doesn't implement `std::fmt::Display`
}

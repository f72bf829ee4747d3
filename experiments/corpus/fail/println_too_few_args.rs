fn main() {
    println!("{} and {}", 1); //~ ERROR 2 positional arguments in format string, but there is 1 argument
}

fn main() {
    println!("{}", 1);
}
/* an unterminated comment /* nested */ //~ ERROR unterminated block comment

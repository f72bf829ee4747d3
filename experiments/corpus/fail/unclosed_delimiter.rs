fn main() {
    let a = 1;
    if a > 0 {
        println!("{}", a);
} //~ ERROR this file contains an unclosed delimiter

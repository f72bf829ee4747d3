fn main() {
    let a = [0; -1]; //~ ERROR cannot apply unary operator `-` to type `usize`
    let _ = a;
}

fn main() {
    let n: usize = 3;
    let a = [0; n]; //~ ERROR attempt to use a non-constant value in a constant
    let _ = a;
}

// Unary minus on a literal whose type is only later inferred to be unsigned.

fn main() {
    let x = 5;
    let y = -x; //~ ERROR the trait bound `usize: Neg` is not satisfied
    let a = [1, 2, 3];
    println!("{} {}", a[x], y);
}

// Overflow during constant evaluation is a compile error, even for an unused constant.

const BIG: i32 = i32::MAX;
const TOO_BIG: i32 = BIG + 1; //~ ERROR attempt to compute `i32::MAX + 1_i32`, which would overflow

fn main() {
    println!("{}", BIG);
}

const ZERO: i32 = 0;
const RATIO: i32 = 10 / ZERO; //~ ERROR attempt to divide `10_i32` by zero

fn main() {
    println!("{}", RATIO);
}

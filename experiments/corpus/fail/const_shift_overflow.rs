// A shift amount of at least the bit width is an overflow in a constant.

const SHIFTED: i32 = 1 << 32; //~ ERROR attempt to shift left by `32_i32`, which would overflow

fn main() {
    println!("{}", SHIFTED);
}

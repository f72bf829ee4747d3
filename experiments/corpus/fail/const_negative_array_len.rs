// An array length that would be negative is an overflow of usize.

const A: usize = 3;
const B: usize = 5;
const LEN: usize = A - B; //~ ERROR attempt to compute `3_usize - 5_usize`, which would overflow

fn main() {
    let a = [0; LEN];
    let _ = a;
}

// Remainder by zero panics, here for u64 inside a digit loop.

fn digits_mod(n: u64, m: u64) -> u64 {
    let mut s = 0;
    let mut v = n;
    while v > 0 {
        s += v % 10 % m;
        v /= 10;
    }
    s
}

fn main() {
    let mut m: u64 = 4;
    loop {
        println!("digits_mod(987654321, {}) = {}", m, digits_mod(987654321, m));
        m -= 1;
    }
}

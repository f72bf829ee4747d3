// Overflow inside a const loop.

const FACT: i64 = {
    let mut f = 1;
    let mut i = 1;
    while i <= 25 {
        f *= i; //~ ERROR attempt to compute `2432902008176640000_i64 * 21_i64`, which would overflow
        i += 1;
    }
    f
};

fn main() {
    println!("{}", FACT);
}

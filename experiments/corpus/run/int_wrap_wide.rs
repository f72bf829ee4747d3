// Wrapping arithmetic on i64, u64 and usize.

fn add64(a: i64, b: i64) -> i64 {
    a + b
}

fn mulu(a: u64, b: u64) -> u64 {
    a * b
}

fn subz(a: usize, b: usize) -> usize {
    a - b
}

fn main() {
    // i64
    println!("i64::MAX + 1 = {}", add64(i64::MAX, 1));
    println!("i64::MIN - 1 = {}", i64::MIN - 1);
    println!("-i64::MIN = {}", -i64::MIN);
    println!("i64::MAX * 2 = {}", i64::MAX * 2);
    println!("4294967296 * 4294967296 = {}", 4294967296i64 * 4294967296i64);
    println!("3037000500 * 3037000500 = {}", 3037000500i64 * 3037000500);

    // u64
    println!("u64::MAX + 1 = {}", u64::MAX + 1);
    println!("0u64 - 1 = {}", 0u64 - 1);
    println!("u64::MAX * u64::MAX = {}", mulu(u64::MAX, u64::MAX));
    println!("2^32 * 2^32 = {}", mulu(4294967296, 4294967296));
    println!("u64::MAX * 3 = {}", mulu(u64::MAX, 3));
    let mut u: u64 = 5;
    u -= 10;
    println!("5 - 10 = {}", u);

    // usize behaves like u64 but is its own type
    println!("usize::MAX = {}", usize::MAX);
    println!("usize::MAX + 2 = {}", usize::MAX + 2);
    println!("3 - 4 = {}", subz(3, 4));
    let mut z: usize = 0;
    z -= 1;
    z *= 2;
    println!("(0 - 1) * 2 = {}", z);

    // A 64-bit linear congruential generator (Knuth's MMIX constants).
    let mut state: u64 = 42;
    let mut i = 0;
    while i < 5 {
        state = state * 6364136223846793005 + 1442695040888963407;
        println!("lcg {} = {}", i, state);
        i += 1;
    }

    // The same generator in i64 gives the same bits, printed signed.
    let mut s: i64 = 42;
    for j in 0..5 {
        s = s * 6364136223846793005 + 1442695040888963407;
        println!("lcg signed {} = {}", j, s);
    }
}

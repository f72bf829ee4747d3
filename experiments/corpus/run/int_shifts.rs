// Shifts: the amount is masked to the bit width minus one, may be of any integer type
// (and negative), and the result has the left operand's type.

fn shl32(a: i32, b: i32) -> i32 {
    a << b
}

fn shr32(a: i32, b: i32) -> i32 {
    a >> b
}

fn shl64(a: i64, b: i64) -> i64 {
    a << b
}

fn shru(a: u64, b: i32) -> u64 {
    a >> b
}

fn main() {
    println!("1 << 0 = {}", shl32(1, 0));
    println!("1 << 31 = {}", shl32(1, 31));
    println!("1 << 32 = {}", shl32(1, 32));
    println!("1 << 33 = {}", shl32(1, 33));
    println!("1 << -1 = {}", shl32(1, -1));
    println!("3 << -31 = {}", shl32(3, -31));
    println!("-16 >> 2 = {}", shr32(-16, 2));
    println!("-16 >> 36 = {}", shr32(-16, 36));
    println!("-1 >> 31 = {}", shr32(-1, 31));
    println!("i32::MIN >> 31 = {}", shr32(i32::MIN, 31));
    println!("i32::MAX >> 30 = {}", shr32(i32::MAX, 30));

    println!("1i64 << 63 = {}", shl64(1, 63));
    println!("1i64 << 64 = {}", shl64(1, 64));
    println!("1i64 << 65 = {}", shl64(1, 65));
    println!("1i64 << -1 = {}", shl64(1, -1));
    println!("i64::MIN >> 63 = {}", i64::MIN >> 63);

    // Unsigned right shifts are logical.
    println!("u64::MAX >> 1 = {}", shru(u64::MAX, 1));
    println!("u64::MAX >> 63 = {}", shru(u64::MAX, 63));
    println!("u64::MAX >> 64 = {}", shru(u64::MAX, 64));
    println!("u64::MAX >> -60 = {}", shru(u64::MAX, -60));
    println!("usize::MAX >> 60 = {}", usize::MAX >> 60);
    println!("1usize << 70 = {}", 1usize << 70);

    // The right operand may have a different type than the left.
    let a: i32 = 5;
    let n64: i64 = 3;
    let nu: u64 = 35;
    let nz: usize = 4;
    println!("5 << 3i64 = {}", a << n64);
    println!("5 << 35u64 = {}", a << nu);
    println!("80 >> 4usize = {}", 80 >> nz);
    let big: u64 = 1 << n64;
    println!("1u64 << 3i64 = {}", big);
    let w: i64 = 1 << 40u64;
    println!("1i64 << 40u64 = {}", w);

    // Compound shift assignments, also with a differently typed amount.
    let mut x: i32 = 1;
    x <<= 10;
    println!("x <<= 10 -> {}", x);
    x <<= 30u64;
    println!("x <<= 30u64 -> {}", x);
    x >>= 1usize;
    println!("x >>= 1usize -> {}", x);
    let mut y: u64 = 0xF000_0000_0000_0000;
    y >>= 68i32;
    println!("y >>= 68 -> {}", y);

    // Shifts bind tighter than comparisons and looser than `+`.
    println!("1 << 2 + 1 = {}", 1 << 2 + 1);
    println!("(1 << 2) + 1 = {}", (1 << 2) + 1);
    println!("1 << 3 == 8 is {}", 1 << 3 == 8);

    // Every bit position of a u64, checked with a loop.
    let mut count = 0;
    let mut k: u64 = 0;
    while k < 128 {
        let bit: u64 = 1u64 << k;
        if bit == 1u64 << (k % 64) {
            count += 1;
        }
        k += 1;
    }
    println!("positions agreeing with mod 64: {}", count);
}

// Bitwise `& | ^`, bitwise `!` on integers and logical `!` on bool, and precedence among them.

fn popcount(mut x: u64) -> i32 {
    let mut n = 0;
    while x != 0 {
        x &= x - 1;
        n += 1;
    }
    n
}

fn main() {
    let a: i32 = 12;
    let b: i32 = 10;
    println!("a & b = {}", a & b);
    println!("a | b = {}", a | b);
    println!("a ^ b = {}", a ^ b);
    println!("!a = {}", !a);
    println!("!0i32 = {}", !0i32);
    println!("!0u64 = {}", !0u64);
    println!("!0usize = {}", !0usize);
    println!("!i64::MIN = {}", !i64::MIN);
    println!("!5u64 = {}", !5u64);

    let t = true;
    let f = false;
    println!("!true = {}, !false = {}", !t, !f);
    println!("t & f = {}, t | f = {}, t ^ t = {}", t & f, t | f, t ^ t);

    // Precedence: & binds tighter than ^, which binds tighter than |.
    println!("1 | 2 ^ 3 & 6 = {}", 1 | 2 ^ 3 & 6);
    println!("((1 | 2) ^ 3) & 6 = {}", ((1 | 2) ^ 3) & 6);
    // Shifts bind tighter than &.
    println!("0xFF & 1 << 4 = {}", 0xFF & 1 << 4);
    // `+` binds tighter than `&`.
    println!("6 & 3 + 1 = {}", 6 & 3 + 1);

    // Negative numbers are two's complement.
    println!("-1 & 0xFF = {}", -1 & 0xFF);
    println!("-256 | 7 = {}", -256 | 7);
    println!("-1i64 ^ 1 = {}", -1i64 ^ 1);

    // Compound assignments.
    let mut m: u64 = 0;
    m |= 1 << 5;
    m |= 1 << 63;
    println!("m = {}", m);
    m ^= u64::MAX;
    println!("m ^= MAX -> {}", m);
    m &= 0xFFFF;
    println!("m &= 0xFFFF -> {}", m);

    println!("popcount(u64::MAX) = {}", popcount(u64::MAX));
    println!("popcount(0xF0F0) = {}", popcount(0xF0F0));
    println!("popcount(-1i64 as u64 >> 3) = {}", popcount(-1i64 as u64 >> 3));

    // Swap with xor.
    let mut x = 12345;
    let mut y = -678;
    x ^= y;
    y ^= x;
    x ^= y;
    println!("swapped: x = {}, y = {}", x, y);

    // A double negation is the identity, also on bools.
    println!("!!7 = {}, !!true = {}", !!7, !!true);
}

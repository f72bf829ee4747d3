// `as` between i32, i64, u64 and usize (sign extension, zero extension, truncation),
// and from bool to integers.

fn main() {
    let neg: i32 = -1;
    println!("-1i32 as i64 = {}", neg as i64);
    println!("-1i32 as u64 = {}", neg as u64);
    println!("-1i32 as usize = {}", neg as usize);
    println!("-1i32 as i32 = {}", neg as i32);

    let m: i32 = i32::MIN;
    println!("i32::MIN as i64 = {}", m as i64);
    println!("i32::MIN as u64 = {}", m as u64);
    println!("i32::MIN as usize = {}", m as usize);

    let big: i64 = 0x1_2345_6789;
    println!("{} as i32 = {}", big, big as i32);
    println!("{} as u64 = {}", big, big as u64);
    let neg64: i64 = -5000000000;
    println!("{} as i32 = {}", neg64, neg64 as i32);
    println!("{} as u64 = {}", neg64, neg64 as u64);
    println!("i64::MIN as u64 = {}", i64::MIN as u64);
    println!("i64::MAX as i32 = {}", i64::MAX as i32);
    println!("i64::MIN as i32 = {}", i64::MIN as i32);

    let u: u64 = u64::MAX;
    println!("u64::MAX as i64 = {}", u as i64);
    println!("u64::MAX as i32 = {}", u as i32);
    println!("u64::MAX as usize = {}", u as usize);
    let h: u64 = 0x8000_0000;
    println!("2^31 as i32 = {}", h as i32);
    println!("2^31 as i64 = {}", h as i64);
    let t: u64 = 0xFFFF_FFFF_0000_0007;
    println!("{} as i32 = {}", t, t as i32);

    let z: usize = usize::MAX - 1;
    println!("(usize::MAX - 1) as i64 = {}", z as i64);
    println!("(usize::MAX - 1) as i32 = {}", z as i32);
    println!("(usize::MAX - 1) as u64 = {}", z as u64);

    // bool to integers
    let t = true;
    let f = false;
    println!("true as i32 = {}, false as i32 = {}", t as i32, f as i32);
    println!("true as i64 = {}, true as u64 = {}, true as usize = {}", t as i64, t as u64, t as usize);
    println!("(3 > 2) as usize + (2 > 3) as usize = {}", (3 > 2) as usize + (2 > 3) as usize);

    // Chains of casts.
    println!("-1i32 as u64 as i32 = {}", -1i32 as u64 as i32);
    println!("-1i64 as i32 as u64 = {}", -1i64 as i32 as u64);
    println!("300i32 as u64 as i64 = {}", 300i32 as u64 as i64);
    println!("(i32::MAX as i64 + 1) as i32 = {}", (i32::MAX as i64 + 1) as i32);
    // Unary minus binds tighter than `as`.
    println!("-1i64 as u64 = {}", -1i64 as u64);
    println!("-(1 as i64) = {}", -(1 as i64));

    // Counting booleans with casts.
    let mut evens = 0;
    for i in 0..25 {
        evens += (i % 2 == 0) as i32;
    }
    println!("evens below 25: {}", evens);

    // Casting a negative index-like value to usize and back.
    let d: i64 = -3;
    let as_index = d as usize;
    println!("-3 as usize = {}, back = {}", as_index, as_index as i64);
}

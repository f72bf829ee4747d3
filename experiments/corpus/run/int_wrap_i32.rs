// Wrapping arithmetic on i32: `+ - *` and unary `-` wrap around (overflow checks are off).

fn add(a: i32, b: i32) -> i32 {
    a + b
}

fn sub(a: i32, b: i32) -> i32 {
    a - b
}

fn mul(a: i32, b: i32) -> i32 {
    a * b
}

fn neg(a: i32) -> i32 {
    -a
}

fn main() {
    let max = i32::MAX;
    let min = i32::MIN;
    println!("max = {}, min = {}", max, min);
    println!("max + 1 = {}", add(max, 1));
    println!("max + max = {}", add(max, max));
    println!("min + min = {}", add(min, min));
    println!("min - 1 = {}", sub(min, 1));
    println!("0 - min = {}", sub(0, min));
    println!("max - min = {}", sub(max, min));
    println!("max * 2 = {}", mul(max, 2));
    println!("min * -1 = {}", mul(min, -1));
    println!("65536 * 65536 = {}", mul(65536, 65536));
    println!("46341 * 46341 = {}", mul(46341, 46341));
    println!("-min = {}", neg(min));
    println!("-max = {}", neg(max));
    println!("-0 = {}", neg(0));

    // The same operations inline, on mutable locals.
    let mut x = max;
    x += 1;
    println!("x += 1 -> {}", x);
    x -= 1;
    println!("x -= 1 -> {}", x);
    x *= 3;
    println!("x *= 3 -> {}", x);
    let y = -x;
    println!("-x = {}", y);

    // A multiplicative hash that relies on wrapping.
    let mut h: i32 = 17;
    let mut i = 0;
    while i < 20 {
        h = h * 31 + i;
        i += 1;
    }
    println!("hash = {}", h);

    // Factorials overflow quickly.
    let mut f: i32 = 1;
    for k in 1..=20 {
        f *= k;
        if k >= 12 {
            println!("{}! wraps to {}", k, f);
        }
    }
}

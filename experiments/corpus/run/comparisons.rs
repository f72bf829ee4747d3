// Comparison operators on every integer type and on bool (false < true).

fn cmp32(a: i32, b: i32) {
    println!("{} vs {}: < {} <= {} > {} >= {} == {} != {}", a, b, a < b, a <= b, a > b, a >= b, a == b, a != b);
}

fn cmpu(a: u64, b: u64) {
    println!("{} vs {}: < {} <= {} > {} >= {} == {} != {}", a, b, a < b, a <= b, a > b, a >= b, a == b, a != b);
}

fn cmpb(a: bool, b: bool) {
    println!("{} vs {}: < {} <= {} > {} >= {} == {} != {}", a, b, a < b, a <= b, a > b, a >= b, a == b, a != b);
}

fn max3(a: i64, b: i64, c: i64) -> i64 {
    let mut m = a;
    if b > m {
        m = b;
    }
    if c > m {
        m = c;
    }
    m
}

fn main() {
    cmp32(1, 2);
    cmp32(2, 2);
    cmp32(-1, 1);
    cmp32(i32::MIN, i32::MAX);
    cmpu(1, 2);
    cmpu(u64::MAX, 0);
    // The same bits compare differently signed and unsigned.
    let s: i64 = -1;
    let u: u64 = s as u64;
    println!("-1i64 < 1: {}, (-1i64 as u64) < 1: {}", s < 1, u < 1);
    let z1: usize = 0;
    let z2: usize = usize::MAX;
    println!("0usize < usize::MAX: {}", z1 < z2);

    cmpb(false, true);
    cmpb(true, false);
    cmpb(true, true);
    cmpb(false, false);

    // Comparisons of comparisons.
    let a = 3;
    let b = 5;
    println!("(a < b) == (b > a): {}", (a < b) == (b > a));
    println!("(a < b) > (b < a): {}", (a < b) > (b < a));
    println!("(a == b) != true: {}", (a == b) != true);

    // Arithmetic binds tighter than comparison; comparison tighter than && and ||.
    println!("a + 2 == b: {}", a + 2 == b);
    println!("a * 2 > b && b - a == 2: {}", a * 2 > b && b - a == 2);
    println!("a > b || a << 1 == 6: {}", a > b || a << 1 == 6);

    println!("max3: {}", max3(-5, 17, 3));
    println!("max3: {}", max3(i64::MIN, i64::MIN + 1, -9));

    // Counting the ordered pairs among small values, including bool converted to int.
    let mut less = 0;
    let mut equal = 0;
    for i in -3..4 {
        for j in -3..4 {
            less += (i < j) as i32;
            equal += (i == j) as i32;
        }
    }
    println!("less pairs {}, equal pairs {}", less, equal);
}

// Division and remainder truncate toward zero; the remainder has the sign of the dividend.

fn div32(a: i32, b: i32) -> i32 {
    a / b
}

fn rem32(a: i32, b: i32) -> i32 {
    a % b
}

fn show(a: i32, b: i32) {
    println!("{} / {} = {}, {} % {} = {}", a, b, div32(a, b), a, b, rem32(a, b));
}

fn main() {
    show(7, 2);
    show(-7, 2);
    show(7, -2);
    show(-7, -2);
    show(1, 3);
    show(-1, 3);
    show(0, -5);
    show(i32::MIN, 2);
    show(i32::MIN, -2);
    show(i32::MAX, -1);
    show(i32::MIN, i32::MAX);
    show(i32::MIN + 1, -1);

    // i64
    let a: i64 = -9000000000;
    println!("{} / 7 = {}, % 7 = {}", a, a / 7, a % 7);
    println!("{} / -7 = {}, % -7 = {}", a, a / -7, a % -7);
    println!("i64::MIN / 3 = {}, % 3 = {}", i64::MIN / 3, i64::MIN % 3);

    // unsigned
    let u: u64 = u64::MAX;
    println!("u64::MAX / 10 = {}, % 10 = {}", u / 10, u % 10);
    println!("u64::MAX / u64::MAX = {}", u / u64::MAX);
    println!("7 / 9 = {}, 7 % 9 = {}", 7u64 / 9, 7u64 % 9);
    let z: usize = 100;
    println!("100usize / 7 = {}, % 7 = {}", z / 7, z % 7);
    println!("usize::MAX / 2 = {}", usize::MAX / 2);

    // (a / b) * b + a % b == a always holds.
    let mut ok = true;
    let mut a = -20;
    while a <= 20 {
        let mut b = -6;
        while b <= 6 {
            if b != 0 {
                if (a / b) * b + a % b != a {
                    ok = false;
                }
            }
            b += 1;
        }
        a += 1;
    }
    println!("identity holds: {}", ok);

    // Compound forms.
    let mut x = -100;
    x /= 7;
    println!("-100 /= 7 -> {}", x);
    x %= 4;
    println!("-14 %= 4 -> {}", x);

    // Digits of a number by repeated division.
    let mut n: u64 = 9876543210123;
    let mut sum = 0;
    while n > 0 {
        sum += n % 10;
        n /= 10;
    }
    println!("digit sum = {}", sum);
}

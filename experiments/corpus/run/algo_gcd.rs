// Greatest common divisors: Euclid (iterative and recursive), binary GCD, extended Euclid
// via arrays, lcm, and Euler's totient by counting.

fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        let t = a % b;
        a = b;
        b = t;
    }
    a
}

fn gcd_rec(a: i64, b: i64) -> i64 {
    if b == 0 { if a < 0 { -a } else { a } } else { gcd_rec(b, a % b) }
}

fn binary_gcd(mut a: u64, mut b: u64) -> u64 {
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let mut shift = 0;
    while (a | b) & 1 == 0 {
        a >>= 1;
        b >>= 1;
        shift += 1;
    }
    while a & 1 == 0 {
        a >>= 1;
    }
    loop {
        while b & 1 == 0 {
            b >>= 1;
        }
        if a > b {
            let t = a;
            a = b;
            b = t;
        }
        b -= a;
        if b == 0 {
            break;
        }
    }
    a << shift
}

// Returns [g, x, y] with a*x + b*y == g.
fn ext_gcd(a: i64, b: i64) -> [i64; 3] {
    if b == 0 {
        return [a, 1, 0];
    }
    let r = ext_gcd(b, a % b);
    [r[0], r[2], r[1] - (a / b) * r[2]]
}

fn lcm(a: u64, b: u64) -> u64 {
    a / gcd(a, b) * b
}

fn totient(n: u64) -> u64 {
    let mut c = 0;
    for k in 1..=n {
        if gcd(k, n) == 1 {
            c += 1;
        }
    }
    c
}

fn main() {
    let pairs = [[48u64, 18], [17, 5], [0, 9], [1071, 462], [u64::MAX, 3], [1 << 40, 1 << 20]];
    for i in 0..6 {
        let a = pairs[i][0];
        let b = pairs[i][1];
        println!("gcd({}, {}) = {} = {}", a, b, gcd(a, b), binary_gcd(a, b));
    }
    println!("gcd_rec(-48, 18) = {}, gcd_rec(48, -18) = {}", gcd_rec(-48, 18), gcd_rec(48, -18));
    let e = ext_gcd(240, 46);
    println!("ext_gcd(240, 46) = {} with x = {}, y = {}: check {}", e[0], e[1], e[2], 240 * e[1] + 46 * e[2]);
    let mut l: u64 = 1;
    for k in 1..=30 {
        l = lcm(l, k);
    }
    println!("lcm(1..=30) = {}", l);
    for n in 1..=5u64 {
        println!("totient({}) = {}", n, totient(n));
    }
    println!("totient(360) = {}", totient(360));
}

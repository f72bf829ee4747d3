// Arbitrary-precision arithmetic on arrays of base-10^9 limbs: 100!, 2^300, and Fibonacci
// number 400, printed limb by limb (zero-padding done by hand).

const LIMBS: usize = 24;
const BASE: u64 = 1000000000;

#[derive(Clone, Copy)]
struct Big {
    d: [u64; LIMBS],
}

fn from(n: u64) -> Big {
    let mut b = Big { d: [0; LIMBS] };
    b.d[0] = n % BASE;
    b.d[1] = n / BASE % BASE;
    b.d[2] = n / BASE / BASE;
    b
}

fn mul_small(mut a: Big, m: u64) -> Big {
    let mut carry = 0;
    for i in 0..LIMBS {
        let v = a.d[i] * m + carry;
        a.d[i] = v % BASE;
        carry = v / BASE;
    }
    a
}

fn add(a: Big, b: Big) -> Big {
    let mut r = Big { d: [0; LIMBS] };
    let mut carry = 0;
    for i in 0..LIMBS {
        let v = a.d[i] + b.d[i] + carry;
        r.d[i] = v % BASE;
        carry = v / BASE;
    }
    r
}

fn print_padded(v: u64) {
    // Prints a limb as nine digits, in three groups of three for readability.
    let hi = v / 1000000;
    let mid = v / 1000 % 1000;
    let lo = v % 1000;
    println!("  {}{}{} {}{}{} {}{}{}", hi / 100, hi / 10 % 10, hi % 10, mid / 100, mid / 10 % 10, mid % 10, lo / 100, lo / 10 % 10, lo % 10);
}

fn print(label: i32, b: Big) {
    let mut top = LIMBS - 1;
    while top > 0 && b.d[top] == 0 {
        top -= 1;
    }
    println!("value {} has {} limbs; leading limb {}", label, top + 1, b.d[top]);
    let mut i = top;
    while i > 0 {
        i -= 1;
        print_padded(b.d[i]);
    }
}

fn digit_sum(b: Big) -> u64 {
    let mut s = 0;
    for i in 0..LIMBS {
        let mut v = b.d[i];
        while v > 0 {
            s += v % 10;
            v /= 10;
        }
    }
    s
}

fn main() {
    let mut f = from(1);
    for k in 2..=100 {
        f = mul_small(f, k);
    }
    print(1, f);
    println!("digit sum of 100! = {}", digit_sum(f));

    let mut p = from(1);
    for _k in 0..300 {
        p = mul_small(p, 2);
    }
    print(2, p);
    println!("digit sum of 2^300 = {}", digit_sum(p));

    let mut a = from(0);
    let mut b = from(1);
    for _k in 0..400 {
        let c = add(a, b);
        a = b;
        b = c;
    }
    print(3, a);
    println!("digit sum of fib(400) = {}", digit_sum(a));
}

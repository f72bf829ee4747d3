// Constant initializers with blocks, `let`/`let mut`, assignments, `if`, `while`, `loop`
// with `break`, array and struct literals, indexing and field access.

#[derive(Clone, Copy)]
struct Config {
    width: usize,
    height: usize,
    scale: i64,
    enabled: bool,
}

const DEFAULT: Config = Config { width: 8, height: 4, scale: -3, enabled: true };
const AREA: usize = DEFAULT.width * DEFAULT.height;
const SCALED: i64 = DEFAULT.scale * AREA as i64;

const PRIMES: [u64; 6] = [2, 3, 5, 7, 11, 13];
const PRIME_PRODUCT: u64 = {
    let mut p = 1;
    let mut i = 0;
    while i < 6 {
        p *= PRIMES[i];
        i += 1;
    }
    p
};

const SQUARES: [i32; 10] = {
    let mut a = [0; 10];
    let mut i = 0;
    while i < 10 {
        a[i] = (i * i) as i32;
        i += 1;
    }
    a
};

const FIB_30: i64 = {
    let mut a = 0;
    let mut b = 1;
    let mut n = 0;
    loop {
        if n == 30 {
            break a;
        }
        let t = a + b;
        a = b;
        b = t;
        n += 1;
    }
};

const COLLATZ_27: i32 = {
    let mut n: i64 = 27;
    let mut steps = 0;
    while n != 1 {
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        steps += 1;
    }
    steps
};

const CLAMPED: i32 = if SQUARES[9] > 50 { 50 } else { SQUARES[9] };

const GRID: [[bool; 3]; 2] = [[true, false, true], [false, true, false]];
const DIAGONAL: bool = GRID[1][1] && !GRID[0][1];

const MODIFIED: Config = {
    let mut c = DEFAULT;
    c.width = 100;
    c.enabled = !c.enabled;
    c
};

const CONFIGS: [Config; 2] = [DEFAULT, MODIFIED];

fn main() {
    println!("AREA = {}, SCALED = {}", AREA, SCALED);
    println!("PRIME_PRODUCT = {}", PRIME_PRODUCT);
    println!("SQUARES = {} {} {}", SQUARES[0], SQUARES[5], SQUARES[9]);
    println!("FIB_30 = {}", FIB_30);
    println!("COLLATZ_27 = {}", COLLATZ_27);
    println!("CLAMPED = {}", CLAMPED);
    println!("DIAGONAL = {}", DIAGONAL);
    println!("MODIFIED = {} {} {} {}", MODIFIED.width, MODIFIED.height, MODIFIED.scale, MODIFIED.enabled);
    println!("DEFAULT.width still = {}", DEFAULT.width);
    println!("CONFIGS[1].width = {}, CONFIGS[0].enabled = {}", CONFIGS[1].width, CONFIGS[0].enabled);

    // A const array used at run time is a value that can be copied and changed.
    let mut local = SQUARES;
    local[0] = -1;
    println!("local[0] = {}, SQUARES[0] = {}", local[0], SQUARES[0]);
    let mut sum = 0;
    for i in 0..10 {
        sum += SQUARES[i];
    }
    println!("sum of SQUARES = {}", sum);
    let mut c = CONFIGS[0];
    c.scale *= 2;
    println!("c.scale = {}, DEFAULT.scale = {}", c.scale, DEFAULT.scale);
}

// Constants: typed values computed at compile time, depending on each other in any order,
// with MIN/MAX of the integer types and casts.

const SECONDS_PER_DAY: u64 = HOURS_PER_DAY * MINUTES_PER_HOUR * SECONDS_PER_MINUTE;
const HOURS_PER_DAY: u64 = 24;
const MINUTES_PER_HOUR: u64 = 60;
const SECONDS_PER_MINUTE: u64 = 60;
const SECONDS_PER_YEAR: u64 = SECONDS_PER_DAY * 365;

const BIG: i64 = i64::MAX;
const SMALL: i64 = i64::MIN;
const ZERO: u64 = u64::MIN;
const ALL_ONES: usize = usize::MAX;
const HALF: u64 = u64::MAX / 2 + 1;
const I32_SPAN: i64 = i32::MAX as i64 - i32::MIN as i64;
const NEG: i32 = -42;
const NEG_AS_U64: u64 = NEG as u64;
const FLAG: bool = SECONDS_PER_DAY > 80000;
const FLAG_INT: i32 = FLAG as i32 + (!FLAG) as i32 * 10;
const MASK: u64 = (1 << 40) - 1;
const SHIFTED: i32 = -1 >> 5;
const REM: i32 = -17 % 5;
const PRECEDENCE: i32 = 2 + 3 * 4 - 10 / 3 % 2;
const COMPARE: bool = HOURS_PER_DAY < MINUTES_PER_HOUR && ZERO == 0;

fn uses_consts(days: u64) -> u64 {
    days * SECONDS_PER_DAY + MASK % 1000
}

fn main() {
    println!("seconds per day = {}", SECONDS_PER_DAY);
    println!("seconds per year = {}", SECONDS_PER_YEAR);
    println!("BIG = {}, SMALL = {}", BIG, SMALL);
    println!("ZERO = {}, ALL_ONES = {}, HALF = {}", ZERO, ALL_ONES, HALF);
    println!("I32_SPAN = {}", I32_SPAN);
    println!("NEG = {}, NEG_AS_U64 = {}", NEG, NEG_AS_U64);
    println!("FLAG = {}, FLAG_INT = {}", FLAG, FLAG_INT);
    println!("MASK = {}, SHIFTED = {}, REM = {}", MASK, SHIFTED, REM);
    println!("PRECEDENCE = {}, COMPARE = {}", PRECEDENCE, COMPARE);
    println!("uses_consts(3) = {}", uses_consts(3));

    // Arithmetic on constants at run time wraps like any other value.
    let wrapped = BIG + 1;
    println!("BIG + 1 at run time = {}", wrapped);
    let mut x = ALL_ONES;
    x += 2;
    println!("ALL_ONES + 2 at run time = {}", x);
    println!("i32::MAX and i32::MIN: {} {}", i32::MAX, i32::MIN);
    println!("usize::MIN = {}, u64::MAX = {}, i64::MIN = {}", usize::MIN, u64::MAX, i64::MIN);
}

// Integer literal typing: an unsuffixed literal takes the expected type where there is one,
// otherwise it unifies with what it meets, and defaults to i32.
// Each line shows the type through wrapping behaviour or a value that only fits that type.

#[derive(Clone, Copy)]
struct Wide {
    big: i64,
    ubig: u64,
    idx: usize,
}

fn takes_u64(x: u64) -> u64 {
    x
}

fn takes_i64(x: i64) -> i64 {
    x
}

fn returns_i64() -> i64 {
    5000000000
}

fn returns_u64_from_block() -> u64 {
    let base = 1;
    {
        base + 18446744073709551614
    }
}

fn main() {
    // Default i32: adding one to the maximum wraps at 32 bits.
    let a = 2147483647;
    let b = a + 1;
    println!("default i32: {} + 1 = {}", a, b);

    // Annotation.
    let c: i64 = 3000000000;
    let d: u64 = 18446744073709551615;
    let e: usize = 18446744073709551615;
    println!("annotated: {} {} {}", c, d, e);

    // Parameters and return types.
    println!("param u64: {}", takes_u64(10000000000000000000));
    println!("param i64: {}", takes_i64(-9223372036854775808));
    println!("return i64: {}", returns_i64());
    println!("block tail u64: {}", returns_u64_from_block());

    // Struct fields.
    let w = Wide { big: 6000000000, ubig: 12345678901234567890, idx: 4294967296 };
    println!("fields: {} {} {}", w.big, w.ubig, w.idx);

    // Array elements.
    let arr: [u64; 3] = [18446744073709551615, 0, 9223372036854775808];
    println!("array: {} {} {}", arr[0], arr[1], arr[2]);
    let nested: [[i64; 2]; 2] = [[4000000000, -4000000000], [1, 2]];
    println!("nested array: {} {}", nested[0][0], nested[0][1]);

    // Cast targets: the literal itself gets the cast's type.
    let f = 3000000000 as i64;
    let g = 18446744073709551615 as u64;
    println!("casts: {} {}", f, g);

    // Parentheses, unary minus, unary not and block tails pass the expected type down.
    let h: i64 = (3000000000);
    let i: i64 = -(3000000000);
    let j: u64 = !0;
    let k: i64 = { 7000000000 };
    let l: u64 = if a > 0 { 10000000000000000000 } else { 1 };
    let m: i64 = -{ (4000000000) };
    println!("parens {} neg {} not {} block {} if {} mix {}", h, i, j, k, l, m);

    // Unification: the literal's type is fixed by a later use.
    let mut n = 0;
    let limit: u64 = 3;
    while n < limit {
        n += 1;
    }
    n -= 4;
    println!("unified with u64: {}", n);
    let p = 7;
    let q: i64 = p * 1000000000;
    println!("p unified with i64: {}", q);
    let mut idx = 0;
    let small = [10, 20, 30];
    idx = idx + 2;
    println!("index literal is usize: {}", small[idx]);
    let r = 1;
    let s = takes_u64(r) - 2;
    println!("unified through a call: {}", s);

    // Shifts: the right operand never constrains the left one, and is i32 by default.
    let amount = 40;
    let shifted: u64 = 1 << amount;
    println!("1 << 40 as u64: {}", shifted);
    let narrow = 1 << 31;
    println!("1 << 31 by default: {}", narrow);

    // A cast does not unify its operand: it stays i32 and wraps.
    let t = 2147483647;
    let u = (t + 1) as i64;
    println!("cast of i32 sum: {}", u);

    // Comparisons unify both sides.
    let v = 4294967296;
    let big: i64 = 1;
    println!("v > big: {}", v > big);

    // Array repeat and element types flow through nested arrays.
    let zeros: [u64; 4] = [0; 4];
    let first = zeros[0] - 1;
    println!("repeat element u64: {}", first);
}

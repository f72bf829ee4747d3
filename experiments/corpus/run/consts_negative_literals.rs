// Negated literals are one negative literal, in constants and in bodies alike: the
// minimum of each type is written without overflow; negating a named minimum wraps.
const MIN32: i32 = -2147483648;
const MIN64: i64 = -(9223372036854775808);
const SUM: i64 = MIN32 as i64 + -1;
const ARR: [i32; 3] = [-2147483648, -1, -(2147483647)];

fn neg(x: i32) -> i32 {
    -x
}

fn main() {
    println!("{} {} {}", MIN32, MIN64, SUM);
    println!("{} {} {}", ARR[0], ARR[1], ARR[2]);
    let a: i32 = -2147483648;
    let b = -i32::MIN;
    let c: i64 = - -9223372036854775807;
    println!("{} {} {} {}", a, b, c, neg(MIN32));
}

// Recursion: Fibonacci, Ackermann, mutual recursion, recursion over arrays passed by value,
// and a recursion depth of 100 000 frames.

fn fib(n: i32) -> i64 {
    if n < 2 {
        n as i64
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

fn ackermann(m: u64, n: u64) -> u64 {
    if m == 0 {
        n + 1
    } else if n == 0 {
        ackermann(m - 1, 1)
    } else {
        ackermann(m - 1, ackermann(m, n - 1))
    }
}

fn is_even(n: Nat) -> bool {
    if n == 0 { true } else { is_odd(n - 1) }
}

fn is_odd(n: Nat) -> bool {
    if n == 0 { false } else { is_even(n - 1) }
}

type Nat = u64;

fn sum_from(a: [i32; 8], i: usize) -> i32 {
    if i == 8 { 0 } else { a[i] + sum_from(a, i + 1) }
}

fn depth(n: i64) -> i64 {
    if n == 0 { 0 } else { 1 + depth(n - 1) }
}

fn power(base: i64, exp: u64) -> i64 {
    if exp == 0 {
        1
    } else if exp % 2 == 0 {
        let half = power(base, exp / 2);
        half * half
    } else {
        base * power(base, exp - 1)
    }
}

fn hanoi(n: i32, from: i32, to: i32, via: i32, moves: i32) -> i32 {
    if n == 0 {
        return moves;
    }
    let m = hanoi(n - 1, from, via, to, moves);
    if n == 3 {
        println!("move disk 3 from {} to {}", from, to);
    }
    hanoi(n - 1, via, to, from, m + 1)
}

fn main() {
    for n in 0..=25 {
        if n % 5 == 0 {
            println!("fib({}) = {}", n, fib(n));
        }
    }
    println!("ackermann(2, 3) = {}", ackermann(2, 3));
    println!("ackermann(3, 3) = {}", ackermann(3, 3));
    println!("is_even(10) = {}, is_odd(7) = {}, is_even(7) = {}", is_even(10), is_odd(7), is_even(7));
    println!("sum_from = {}", sum_from([1, 2, 3, 4, 5, 6, 7, 8], 0));
    println!("depth(100000) = {}", depth(100000));
    println!("3^13 = {}, 2^62 = {}, 2^64 wraps to {}", power(3, 13), power(2, 62), power(2, 64));
    println!("hanoi(5) moves = {}", hanoi(5, 1, 3, 2, 0));
}

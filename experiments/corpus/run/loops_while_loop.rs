// `while` and `loop` with break and continue.

fn count_digits(mut n: u64) -> i32 {
    let mut d = 0;
    loop {
        d += 1;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    d
}

fn first_square_above(limit: i32) -> i32 {
    let mut i = 0;
    loop {
        if i * i > limit {
            return i;
        }
        i += 1;
    }
}

fn triangular(n: i64) -> i64 {
    let mut sum = 0;
    let mut i = 1;
    while i <= n {
        sum += i;
        i += 1;
    }
    sum
}

fn main() {
    println!("digits: {} {} {} {}", count_digits(0), count_digits(9), count_digits(10), count_digits(u64::MAX));
    println!("first square above 50: {}", first_square_above(50));
    println!("triangular(100) = {}", triangular(100));
    println!("triangular(0) = {}", triangular(0));

    // continue skips the rest of the body; the while condition is tested again.
    let mut i = 0;
    let mut odd_sum = 0;
    while i < 20 {
        i += 1;
        if i % 2 == 0 {
            continue;
        }
        odd_sum += i;
    }
    println!("odd sum = {}", odd_sum);

    // break out of a while loop early.
    let mut n = 1;
    while n < 1000000 {
        n *= 3;
        if n % 7 == 5 {
            break;
        }
    }
    println!("n = {}", n);

    // A while loop whose condition is false at once never runs its body.
    let mut ran = false;
    while false {
        ran = true;
    }
    println!("ran = {}", ran);

    // Nested loops: break leaves only the innermost one.
    let mut pairs = 0;
    let mut a = 0;
    while a < 5 {
        let mut b = 0;
        loop {
            if b > a {
                break;
            }
            pairs += 1;
            b += 1;
        }
        a += 1;
    }
    println!("pairs = {}", pairs);

    // A loop with continue and a counter modified in several places.
    let mut k = 0;
    let mut seen = 0;
    loop {
        k += 1;
        if k > 30 {
            break;
        }
        if k % 3 != 0 {
            continue;
        }
        if k % 5 == 0 {
            k += 1;
        }
        seen += k;
    }
    println!("seen = {}, k = {}", seen, k);

    // While with a compound condition and a boolean flag.
    let mut found = false;
    let mut x: u64 = 1;
    while !found && x < 100 {
        x += 1;
        found = x * x % 17 == 13;
    }
    println!("found = {} at x = {}", found, x);
}

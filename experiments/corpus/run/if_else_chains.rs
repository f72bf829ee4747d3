// `if` / `else if` / `else` chains as statements and as values.

fn classify(n: i32) -> i32 {
    if n < 0 {
        -1
    } else if n == 0 {
        0
    } else if n < 10 {
        1
    } else if n < 100 {
        2
    } else {
        3
    }
}

fn fizzbuzz_code(n: i32) -> i32 {
    // 15 for FizzBuzz, 3 for Fizz, 5 for Buzz, otherwise the number itself.
    if n % 15 == 0 { 15 } else if n % 3 == 0 { 3 } else if n % 5 == 0 { 5 } else { n }
}

fn abs64(x: i64) -> i64 {
    if x < 0 { -x } else { x }
}

fn sign_name(b: bool, n: i32) -> bool {
    let positive = if b { n > 0 } else { n < 0 };
    positive
}

fn main() {
    let samples = [-50, 0, 7, 42, 1000];
    for i in 0..5 {
        println!("classify({}) = {}", samples[i], classify(samples[i]));
    }
    for n in 1..=15 {
        println!("fizzbuzz {} -> {}", n, fizzbuzz_code(n));
    }
    println!("abs64 = {} {} {}", abs64(-9), abs64(9), abs64(i64::MIN));
    println!("sign_name = {} {}", sign_name(true, 3), sign_name(false, 3));

    // An if without else is a statement of type ().
    let mut x = 5;
    if x > 3 {
        x = x * 10;
    }
    if x > 1000 {
        x = 0;
    }
    println!("x = {}", x);

    // Nested ifs as values in arithmetic.
    let y = 1 + if x > 10 { if x > 40 { 100 } else { 50 } } else { 0 } * 2;
    println!("y = {}", y);

    // Chains where every branch is a block with statements.
    let mut log = 0;
    let z = if x % 2 == 1 {
        log += 1;
        x / 2
    } else if x % 3 == 0 {
        log += 10;
        x / 3
    } else {
        log += 100;
        x
    };
    println!("z = {}, log = {}", z, log);

    // The value of an if chain can be a bool or an array.
    let flags = [if z > 10 { true } else { false }, if z < 10 { true } else { false }];
    println!("flags = {} {}", flags[0], flags[1]);
    let arr = if flags[0] { [1, 2, 3] } else { [4, 5, 6] };
    println!("arr = {} {} {}", arr[0], arr[1], arr[2]);

    // Conditions with side effects are evaluated once per test, in order, and only until
    // one succeeds.
    let mut tests = 0;
    let mut total = 0;
    for k in 0..4 {
        let r = if {
            tests += 1;
            k == 0
        } {
            10
        } else if {
            tests += 1;
            k == 1
        } {
            20
        } else {
            30
        };
        total += r;
    }
    println!("tests = {}, total = {}", tests, total);
}

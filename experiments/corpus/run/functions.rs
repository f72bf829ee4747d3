// Functions: unit-returning functions, `mut` parameters, early `return;`, functions called
// before their definition, and values of every type passed and returned.

#[derive(Clone, Copy)]
struct Acc {
    sum: i64,
    calls: i32,
}

fn report(label: i32, v: i64) {
    println!("report {}: {}", label, v);
}

fn maybe_report(v: i64) {
    if v < 0 {
        return;
    }
    report(0, v);
}

fn accumulate(mut acc: Acc, values: [i64; 4]) -> Acc {
    for i in 0..4 {
        acc.sum += values[i];
    }
    acc.calls += 1;
    acc
}

fn countdown(mut n: u64) -> u64 {
    let mut steps = 0;
    while n > 0 {
        n /= 2;
        steps += 1;
    }
    steps
}

fn flags(n: i32) -> [bool; 3] {
    [n % 2 == 0, n % 3 == 0, n % 5 == 0]
}

fn unit_value() {}

fn ignore_params(_a: i32, _b: bool, _c: [u64; 2]) -> i32 {
    7
}

fn nested_calls(x: i32) -> i32 {
    later(later(x) + later(x + 1))
}

fn later(x: i32) -> i32 {
    x * 2 + 1
}

fn explicit_return(x: i32) -> i32 {
    return x + 1;
}

fn main() {
    report(1, 100);
    maybe_report(-5);
    maybe_report(5);
    let a = Acc { sum: 0, calls: 0 };
    let a = accumulate(a, [1, 2, 3, 4]);
    let a = accumulate(a, [10, 20, 30, 40]);
    println!("sum = {}, calls = {}", a.sum, a.calls);
    println!("countdown(1000) = {}, countdown(u64::MAX) = {}", countdown(1000), countdown(u64::MAX));
    let f = flags(30);
    println!("flags(30) = {} {} {}", f[0], f[1], f[2]);
    println!("flags(7)[0] = {}", flags(7)[0]);
    let u = unit_value();
    let _ = u;
    unit_value();
    println!("ignore_params = {}", ignore_params(1, true, [2, 3]));
    println!("nested_calls(3) = {}", nested_calls(3));
    println!("explicit_return(41) = {}", explicit_return(41));
}

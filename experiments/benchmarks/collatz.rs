// Longest Collatz chain below a bound.
fn chain(mut n: u64) -> u64 {
    let mut steps = 0;
    while n != 1 {
        if n % 2 == 0 {
            n = n / 2;
        } else {
            n = 3 * n + 1;
        }
        steps += 1;
    }
    steps
}

fn main() {
    let mut best = 0;
    let mut best_n = 0;
    let mut n = 1;
    while n < 700000 {
        let c = chain(n);
        if c > best {
            best = c;
            best_n = n;
        }
        n += 1;
    }
    println!("{} {}", best_n, best);
}

// Collatz sequences: the longest chain below 30 000 and a few trajectories.

fn steps(mut n: u64) -> Steps {
    let mut s = 0;
    while n != 1 {
        if n % 2 == 0 {
            n /= 2;
        } else {
            n = 3 * n + 1;
        }
        s += 1;
    }
    s
}

type Steps = i32;

fn peak(mut n: u64) -> u64 {
    let mut m = n;
    while n != 1 {
        n = if n & 1 == 0 { n >> 1 } else { n * 3 + 1 };
        if n > m {
            m = n;
        }
    }
    m
}

fn main() {
    let mut best = 1;
    let mut best_steps = 0;
    let mut total: i64 = 0;
    for n in 1..30000u64 {
        let s = steps(n);
        total += s as i64;
        if s > best_steps {
            best_steps = s;
            best = n;
        }
    }
    println!("longest chain below 30000 starts at {} with {} steps", best, best_steps);
    println!("total steps: {}", total);
    let starts = [7u64, 27, 97, 871, 6171, 77031];
    for i in 0..6 {
        println!("{}: {} steps, peak {}", starts[i], steps(starts[i]), peak(starts[i]));
    }
    let mut n: u64 = 27;
    let mut line = 0;
    let mut shown = 0;
    while n != 1 && shown < 12 {
        line = line * 10 + (n % 10) as i64;
        n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
        shown += 1;
    }
    println!("last digits of the first 12 terms from 27: {}", line);
}

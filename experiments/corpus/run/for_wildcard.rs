// `for _ in a..b`: a loop that repeats without naming its counter, over half-open and
// inclusive ranges of every integer type, with bounds evaluated exactly once, nested, with
// `break`, `continue` and labels, and as the last expression of a block.

/// Prints which bound is evaluated (0 the start, 1 the end) and returns `v`.
fn bound(which: i32, v: i32) -> i32 {
    println!("  evaluating bound {} = {}", which, v);
    v
}

fn repeat_sum(n: usize) -> usize {
    let mut s = 0;
    for _ in 0..n {
        s += n;
    }
    s
}

/// The first `k` in `1..` whose square exceeds `limit`, returned from inside `for _`.
fn first_square_above(limit: u64) -> u64 {
    let mut k = 0;
    for _ in 0..limit {
        k += 1;
        if k * k > limit {
            return k;
        }
    }
    0
}

fn main() {
    let mut n = 0;
    for _ in 0..5 {
        n += 1;
    }
    println!("0..5 ran {} times", n);

    let mut n = 0;
    for _ in 0..=5 {
        n += 1;
    }
    println!("0..=5 ran {} times", n);

    // Empty and single-element ranges.
    let mut n = 0;
    for _ in 3..3 {
        n += 1;
    }
    for _ in 5..3 {
        n += 1;
    }
    for _ in 5..=4 {
        n += 1;
    }
    println!("empty ranges ran {} times", n);
    let mut n = 0;
    for _ in 7..=7 {
        n += 1;
    }
    println!("7..=7 ran {} time(s)", n);

    // The bounds are evaluated once each, start first, however many iterations follow.
    println!("half-open:");
    let mut n = 0;
    for _ in bound(0, 2)..bound(1, 6) {
        n += 1;
    }
    println!("  ran {} times", n);
    println!("inclusive:");
    let mut n = 0;
    for _ in bound(0, -2)..=bound(1, 2) {
        n += 1;
    }
    println!("  ran {} times", n);
    println!("empty:");
    for _ in bound(0, 9)..bound(1, 1) {
        println!("  never printed");
    }

    // Changing the end's variable in the body does not change the iteration count.
    let mut end = 4;
    let mut n = 0;
    for _ in 0..end {
        end += 100;
        n += 1;
    }
    println!("ran {} times, end = {}", n, end);

    // Every integer type, negative bounds, and bounds at the type's limits.
    let mut n = 0;
    for _ in -3i64..3 {
        n += 1;
    }
    println!("i64 -3..3 ran {} times", n);
    let mut n = 0;
    for _ in u64::MAX - 2..=u64::MAX {
        n += 1;
    }
    println!("u64 ..=MAX ran {} times", n);
    let mut n = 0;
    for _ in i32::MIN..i32::MIN + 3 {
        n += 1;
    }
    println!("i32 MIN.. ran {} times", n);
    let start: usize = 10;
    let mut n = 0;
    for _ in start..start * 2 {
        n += 1;
    }
    println!("usize 10..20 ran {} times", n);
    let mut n = 0;
    for _ in usize::MAX..=usize::MAX {
        n += 1;
    }
    println!("usize MAX..=MAX ran {} time(s)", n);

    // Side effects in the bounds: assignments inside block bounds run once, in order.
    let mut calls = 0;
    let mut n = 0;
    for _ in ({
        calls += 1;
        calls
    })..({
        calls *= 10;
        calls + 3
    }) {
        n += 1;
    }
    println!("calls = {}, ran {} times", calls, n);

    // Nested, with the outer and inner counts multiplying.
    let mut cells = 0;
    for _ in 0..3 {
        for _ in 0..4 {
            cells += 1;
        }
    }
    println!("3 x 4 = {}", cells);

    // A named loop variable next to `_`.
    let mut total = 0;
    for i in 1..=3 {
        for _ in 0..i {
            total += i;
        }
    }
    println!("1*1 + 2*2 + 3*3 = {}", total);

    // break and continue.
    let mut n = 0;
    for _ in 0..1000 {
        n += 1;
        if n == 7 {
            break;
        }
    }
    println!("stopped after {}", n);
    let mut odd = 0;
    let mut k = 0;
    for _ in 0..10 {
        k += 1;
        if k % 2 == 0 {
            continue;
        }
        odd += 1;
    }
    println!("{} odd of {}", odd, k);

    // Labels: leave the outer loop from the inner one.
    let mut steps = 0;
    'outer: for _ in 0..10 {
        for _ in 0..10 {
            steps += 1;
            if steps == 23 {
                break 'outer;
            }
            if steps % 5 == 0 {
                continue 'outer;
            }
        }
    }
    println!("steps = {}", steps);

    // In other functions, one of which returns from inside the loop.
    println!("repeat_sum(6) = {}", repeat_sum(6));
    println!("first_square_above(50) = {}", first_square_above(50));

    // As a block's tail expression (its value is `()`).
    {
        for _ in 0..2 {
            println!("tail iteration");
        }
    }

    // `_` next to a variable named `_x`, which is an ordinary binding.
    let mut s = 0;
    for _x in 0..3 {
        for _ in 0.._x {
            s += _x;
        }
    }
    println!("s = {}", s);
}

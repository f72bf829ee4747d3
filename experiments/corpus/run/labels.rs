// Labeled loops: `break 'l`, `continue 'l`, across loop, while and for.

fn find_pair(target: i32) -> i32 {
    // Returns i * 100 + j for the first pair with i * j == target, or -1.
    let mut result = -1;
    'outer: for i in 1..20 {
        for j in 1..20 {
            if i * j == target {
                result = i * 100 + j;
                break 'outer;
            }
        }
    }
    result
}

fn main() {
    println!("find_pair(42) = {}", find_pair(42));
    println!("find_pair(361) = {}", find_pair(361));
    println!("find_pair(401) = {}", find_pair(401));

    // continue 'outer skips the rest of the inner loop and the outer body.
    let mut visits = 0;
    'rows: for i in 0..5 {
        for j in 0..5 {
            if j > i {
                continue 'rows;
            }
            visits += 1;
        }
        println!("row {} finished", i);
    }
    println!("visits = {}", visits);

    // Labels on while and loop, three levels deep.
    let mut trace = 0;
    let mut a = 0;
    'a: while a < 4 {
        a += 1;
        let mut b = 0;
        'b: loop {
            b += 1;
            if b > 3 {
                break 'b;
            }
            for c in 0..10 {
                if c == 2 {
                    continue 'b;
                }
                if a == 3 && b == 2 {
                    break 'a;
                }
                trace = trace * 3 + c + 1;
                trace %= 1000007;
            }
        }
    }
    println!("trace = {}, a = {}", trace, a);

    // continue to a labeled while re-tests its condition.
    let mut n = 0;
    let mut skipped = 0;
    'w: while n < 10 {
        n += 1;
        let mut m = 0;
        while m < 10 {
            m += 1;
            if n % 3 == 0 {
                skipped += 1;
                continue 'w;
            }
        }
    }
    println!("n = {}, skipped = {}", n, skipped);

    // An unlabeled break inside a labeled loop leaves the innermost loop only.
    let mut inner_breaks = 0;
    'x: for i in 0..3 {
        loop {
            inner_breaks += 1;
            break;
        }
        if i == 1 {
            continue 'x;
        }
        inner_breaks += 10;
    }
    println!("inner_breaks = {}", inner_breaks);

    // Labels may reuse the same name in sibling loops.
    let mut total = 0;
    'l: for i in 0..3 {
        if i == 2 {
            break 'l;
        }
        total += 1;
    }
    'l: for i in 0..3 {
        if i == 0 {
            continue 'l;
        }
        total += 100;
    }
    println!("total = {}", total);
}

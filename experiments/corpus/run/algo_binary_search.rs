// Binary search: lower bound over a sorted array, search for the integer square root,
// and bisection for a monotone predicate over u64.

const LEN: usize = 20;

fn lower_bound(a: [i32; LEN], target: i32) -> usize {
    let mut lo = 0;
    let mut hi = LEN;
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if a[mid] < target {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

fn contains(a: [i32; LEN], target: i32) -> bool {
    let i = lower_bound(a, target);
    i < LEN && a[i] == target
}

fn isqrt(n: u64) -> u64 {
    // Largest r with r * r <= n, avoiding overflow by dividing.
    let mut lo: u64 = 0;
    let mut hi: u64 = 4294967296;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if mid <= n / mid {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

fn first_cube_above(limit: u64) -> u64 {
    let mut lo: u64 = 0;
    let mut hi: u64 = 3000000;
    while lo < hi {
        let mid = (lo + hi) / 2;
        if mid * mid * mid > limit {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    lo
}

fn main() {
    let mut a = [0; LEN];
    for i in 0..LEN {
        a[i] = (i * i) as i32 - 50;
    }
    let probes = [-51, -50, -49, 0, 14, 100, 311, 312, 400];
    for k in 0..9 {
        println!("lower_bound({}) = {}, contains = {}", probes[k], lower_bound(a, probes[k]), contains(a, probes[k]));
    }
    let roots = [0u64, 1, 15, 16, 17, 1000000, 999999999999, u64::MAX];
    for k in 0..8 {
        println!("isqrt({}) = {}", roots[k], isqrt(roots[k]));
    }
    println!("first cube above 10^18: {}", first_cube_above(1000000000000000000));
    println!("first cube above 26: {}", first_cube_above(26));
}

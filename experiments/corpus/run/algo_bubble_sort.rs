// Bubble sort with an early exit, on pseudo-random data, plus selection sort and a check
// that both agree.

const LEN: usize = 64;

fn generate(seed: u64) -> [i64; LEN] {
    let mut a = [0; LEN];
    let mut s = seed;
    for i in 0..LEN {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        a[i] = (s % 2001) as i64 - 1000;
    }
    a
}

fn bubble(mut a: [i64; LEN]) -> [i64; LEN] {
    let mut passes = 0;
    let mut swaps = 0;
    let mut n = LEN;
    loop {
        let mut swapped = false;
        for i in 1..n {
            if a[i - 1] > a[i] {
                let t = a[i - 1];
                a[i - 1] = a[i];
                a[i] = t;
                swapped = true;
                swaps += 1;
            }
        }
        passes += 1;
        n -= 1;
        if !swapped {
            break;
        }
    }
    println!("bubble sort: {} passes, {} swaps", passes, swaps);
    a
}

fn selection(mut a: [i64; LEN]) -> [i64; LEN] {
    for i in 0..LEN {
        let mut m = i;
        for j in i + 1..LEN {
            if a[j] < a[m] {
                m = j;
            }
        }
        let t = a[i];
        a[i] = a[m];
        a[m] = t;
    }
    a
}

fn is_sorted(a: [i64; LEN]) -> bool {
    for i in 1..LEN {
        if a[i - 1] > a[i] {
            return false;
        }
    }
    true
}

fn main() {
    let data = generate(88172645463325252);
    println!("first inputs: {} {} {} {}", data[0], data[1], data[2], data[3]);
    println!("sorted before: {}", is_sorted(data));
    let b = bubble(data);
    let s = selection(data);
    let mut same = true;
    for i in 0..LEN {
        if b[i] != s[i] {
            same = false;
        }
    }
    println!("sorted after: {}, algorithms agree: {}", is_sorted(b), same);
    println!("min {}, median {}, max {}", b[0], b[LEN / 2], b[LEN - 1]);
    for row in 0..8 {
        let k = row * 8;
        println!("{} {} {} {} {} {} {} {}", b[k], b[k + 1], b[k + 2], b[k + 3], b[k + 4], b[k + 5], b[k + 6], b[k + 7]);
    }
    // Sorting an already sorted array takes one pass.
    let again = bubble(b);
    println!("still sorted: {}", is_sorted(again));
}

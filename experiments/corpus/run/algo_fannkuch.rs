// Fannkuch-redux for n = 7: generate all permutations, count pancake flips, and compute
// the checksum and the maximum number of flips.

const N: usize = 7;

fn main() {
    let mut perm = [0usize; N];
    let mut perm1 = [0usize; N];
    let mut count = [0usize; N];
    for i in 0..N {
        perm1[i] = i;
    }
    let mut max_flips = 0;
    let mut checksum: i64 = 0;
    let mut perm_count: i64 = 0;
    let mut r = N;
    loop {
        while r != 1 {
            count[r - 1] = r;
            r -= 1;
        }
        perm = perm1;
        let mut flips = 0;
        let mut k = perm[0];
        while k != 0 {
            let mut i = 0;
            let mut j = k;
            while i < j {
                let t = perm[i];
                perm[i] = perm[j];
                perm[j] = t;
                i += 1;
                j -= 1;
            }
            flips += 1;
            k = perm[0];
        }
        if flips > max_flips {
            max_flips = flips;
        }
        if perm_count % 2 == 0 {
            checksum += flips as i64;
        } else {
            checksum -= flips as i64;
        }
        // Next permutation in the counting order used by the benchmark.
        loop {
            if r == N {
                println!("{}", checksum);
                println!("Pfannkuchen({}) = {}", N, max_flips);
                println!("permutations: {}", perm_count + 1);
                return;
            }
            let perm0 = perm1[0];
            let mut i = 0;
            while i < r {
                perm1[i] = perm1[i + 1];
                i += 1;
            }
            perm1[r] = perm0;
            count[r] -= 1;
            if count[r] > 0 {
                break;
            }
            r += 1;
        }
        perm_count += 1;
    }
}

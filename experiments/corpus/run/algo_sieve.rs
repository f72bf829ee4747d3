// Sieve of Eratosthenes up to 10 000, with prime counting, twin primes and a checksum.

const LIMIT: usize = 10000;

fn sieve() -> [bool; LIMIT + 1] {
    let mut is_prime = [true; LIMIT + 1];
    is_prime[0] = false;
    is_prime[1] = false;
    let mut i = 2;
    while i * i <= LIMIT {
        if is_prime[i] {
            let mut j = i * i;
            while j <= LIMIT {
                is_prime[j] = false;
                j += i;
            }
        }
        i += 1;
    }
    is_prime
}

fn main() {
    let p = sieve();
    let mut count = 0;
    let mut twins = 0;
    let mut checksum: u64 = 0;
    let mut last = 0;
    for n in 0..=LIMIT {
        if p[n] {
            count += 1;
            checksum = checksum * 1000003 + n as u64;
            if n >= 2 && p[n - 2] {
                twins += 1;
            }
            last = n;
        }
    }
    println!("primes up to {}: {}", LIMIT, count);
    println!("twin prime pairs: {}", twins);
    println!("largest: {}", last);
    println!("checksum: {}", checksum);
    let mut shown = 0;
    let mut n = 0;
    while shown < 15 {
        if p[n] {
            println!("prime #{} = {}", shown + 1, n);
            shown += 1;
        }
        n += 1;
    }
    // Count primes in each block of 1000.
    for block in 0..10 {
        let mut c = 0;
        for k in block * 1000..(block + 1) * 1000 {
            c += p[k] as i32;
        }
        println!("block {}: {}", block, c);
    }
}

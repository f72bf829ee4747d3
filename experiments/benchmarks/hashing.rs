// FNV-1a and a xorshift mixer over a long stream of generated words.
fn fnv(h: u64, byte: u64) -> u64 {
    (h ^ (byte & 255)) * 1099511628211
}

fn xorshift(mut x: u64) -> u64 {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    x
}

fn main() {
    let mut h: u64 = 14695981039346656037;
    let mut x: u64 = 88172645463325252;
    let mut buckets = [0u64; 256];
    for _round in 0..10000000 {
        x = xorshift(x);
        h = fnv(h, x);
        h = fnv(h, x >> 8);
        buckets[(h % 256) as usize] += 1;
    }
    let mut m = 0;
    for i in 0..256 {
        if buckets[i] > m {
            m = buckets[i];
        }
    }
    println!("{} {}", h, m);
}

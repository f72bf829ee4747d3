// Hashing loops: FNV-1a (64-bit), djb2 (32-bit, wrapping), xorshift64*, a multiplicative
// hash table with linear probing, and MurmurHash3's 64-bit finalizer.

const TABLE: usize = 64;

fn fnv1a(data: [u64; 8]) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for i in 0..8 {
        let mut v = data[i];
        for _k in 0..8 {
            h ^= v & 0xff;
            h *= 0x100000001b3;
            v >>= 8;
        }
    }
    h
}

fn djb2(data: [i32; 6]) -> i32 {
    let mut h: i32 = 5381;
    for i in 0..6 {
        h = (h << 5) + h + data[i];
    }
    h
}

fn xorshift64star(mut x: u64) -> u64 {
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    x * 0x2545F4914F6CDD1D
}

fn fmix64(mut k: u64) -> u64 {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccd;
    k ^= k >> 33;
    k *= 0xc4ceb9fe1a85ec53;
    k ^= k >> 33;
    k
}

#[derive(Clone, Copy)]
struct Table {
    keys: [u64; TABLE],
    used: [bool; TABLE],
    probes: i32,
}

fn insert(mut t: Table, key: u64) -> Table {
    let mut slot = (fmix64(key) % TABLE as u64) as usize;
    while t.used[slot] && t.keys[slot] != key {
        slot = (slot + 1) % TABLE;
        t.probes += 1;
    }
    t.used[slot] = true;
    t.keys[slot] = key;
    t
}

fn lookup(t: Table, key: u64) -> bool {
    let mut slot = (fmix64(key) % TABLE as u64) as usize;
    let mut n = 0;
    while t.used[slot] && n < TABLE {
        if t.keys[slot] == key {
            return true;
        }
        slot = (slot + 1) % TABLE;
        n += 1;
    }
    false
}

fn main() {
    println!("fnv1a = {}", fnv1a([1, 2, 3, 4, 5, 6, 7, u64::MAX]));
    println!("djb2 = {}", djb2([104, 101, 108, 108, 111, 33]));
    let mut x: u64 = 1;
    for i in 0..5 {
        x = xorshift64star(x);
        println!("xorshift64* {} = {}", i, x);
    }
    println!("fmix64(0) = {}, fmix64(1) = {}, fmix64(MAX) = {}", fmix64(0), fmix64(1), fmix64(u64::MAX));

    let mut t = Table { keys: [0; TABLE], used: [false; TABLE], probes: 0 };
    let mut k: u64 = 7;
    for _k in 0..40 {
        t = insert(t, k);
        k = k * 6364136223846793005 + 1;
    }
    let mut filled = 0;
    for i in 0..TABLE {
        filled += t.used[i] as i32;
    }
    println!("filled = {}, probes = {}", filled, t.probes);
    println!("lookup(7) = {}, lookup(8) = {}", lookup(t, 7), lookup(t, 8));

    // Avalanche: flipping one input bit flips about half of the output bits.
    let mut total_flips = 0;
    for bit in 0..64 {
        let d = fmix64(12345) ^ fmix64(12345 ^ (1u64 << bit));
        let mut v = d;
        while v != 0 {
            total_flips += 1;
            v &= v - 1;
        }
    }
    println!("average flipped bits x 64 = {}", total_flips);
}

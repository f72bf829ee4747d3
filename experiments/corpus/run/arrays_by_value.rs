// Arrays are values: passing one copies it, returning one hands back a new value.

fn reversed(a: [i64; 6]) -> [i64; 6] {
    let mut r = [0; 6];
    for i in 0..6 {
        r[i] = a[5 - i];
    }
    r
}

fn scribble(mut a: [i64; 6]) -> i64 {
    a[0] = -1000;
    a[0] + a[5]
}

fn prefix_sums(mut a: [i64; 6]) -> [i64; 6] {
    for i in 1..6 {
        a[i] += a[i - 1];
    }
    a
}

fn fill(v: u64) -> [u64; 256] {
    [v; 256]
}

fn checksum(a: [u64; 256]) -> u64 {
    let mut h: u64 = 0;
    for i in 0..256 {
        h = h * 31 + a[i] + i as u64;
    }
    h
}

fn make_matrix(seed: i32) -> [[i32; 3]; 3] {
    let mut m = [[0; 3]; 3];
    let mut s = seed;
    for i in 0..3 {
        for j in 0..3 {
            m[i][j] = s;
            s = s * 5 + 1;
        }
    }
    m
}

fn trace(m: [[i32; 3]; 3]) -> i32 {
    m[0][0] + m[1][1] + m[2][2]
}

fn main() {
    let a = [1, 2, 3, 4, 5, 6];
    let r = reversed(a);
    println!("reversed = {} {} {} {} {} {}", r[0], r[1], r[2], r[3], r[4], r[5]);
    println!("scribble = {}, a[0] still = {}", scribble(a), a[0]);
    let p = prefix_sums(a);
    println!("prefix sums = {} {} {} {} {} {}", p[0], p[1], p[2], p[3], p[4], p[5]);
    println!("a unchanged = {} {}", a[1], a[5]);
    println!("reversed twice equals original: {}", reversed(reversed(a))[2] == a[2]);

    let big = fill(3);
    println!("checksum = {}", checksum(big));
    let mut big2 = big;
    big2[255] = 0;
    println!("checksum changed = {}, original = {}", checksum(big2), checksum(big));

    let m = make_matrix(1);
    println!("trace = {}", trace(m));
    println!("element of a returned array: {}", make_matrix(2)[2][1]);
    println!("row of a returned array: {}", reversed(p)[0]);
}

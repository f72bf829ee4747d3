// Dense matrix multiplication of 120x120 i64 matrices, repeated.
const N: usize = 120;

fn fill(seed: i64) -> [[i64; N]; N] {
    let mut m = [[0i64; N]; N];
    let mut x = seed;
    for i in 0..N {
        for j in 0..N {
            x = (x * 1103515245 + 12345) % 65536;
            m[i][j] = x % 100 - 50;
        }
    }
    m
}

fn multiply(a: [[i64; N]; N], b: [[i64; N]; N]) -> [[i64; N]; N] {
    let mut c = [[0i64; N]; N];
    for i in 0..N {
        for j in 0..N {
            let mut sum = 0;
            for k in 0..N {
                sum += a[i][k] * b[k][j];
            }
            c[i][j] = sum;
        }
    }
    c
}

fn main() {
    let a = fill(1);
    let mut b = fill(2);
    let mut trace = 0;
    for _round in 0..6 {
        b = multiply(a, b);
        for i in 0..N {
            for j in 0..N {
                b[i][j] = b[i][j] % 1000;
            }
        }
        trace += b[7][9];
    }
    println!("{}", trace);
}

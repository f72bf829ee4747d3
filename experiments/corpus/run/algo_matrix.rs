// Matrix multiplication, powers by squaring (Fibonacci numbers), and a determinant by
// fraction-free Gaussian elimination (Bareiss), all on integer matrices.

const N: usize = 4;

type Mat = [[i64; N]; N];

fn identity() -> Mat {
    let mut m = [[0; N]; N];
    for i in 0..N {
        m[i][i] = 1;
    }
    m
}

fn mul(a: Mat, b: Mat) -> Mat {
    let mut c = [[0; N]; N];
    for i in 0..N {
        for j in 0..N {
            let mut s = 0;
            for k in 0..N {
                s += a[i][k] * b[k][j];
            }
            c[i][j] = s;
        }
    }
    c
}

fn pow(mut m: Mat, mut e: u64) -> Mat {
    let mut r = identity();
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, m);
        }
        m = mul(m, m);
        e >>= 1;
    }
    r
}

fn det(mut m: Mat) -> i64 {
    // Bareiss algorithm; exact for integer matrices.
    let mut sign = 1;
    let mut prev = 1;
    for k in 0..N - 1 {
        if m[k][k] == 0 {
            let mut swap = N;
            for i in k + 1..N {
                if m[i][k] != 0 && swap == N {
                    swap = i;
                }
            }
            if swap == N {
                return 0;
            }
            let t = m[k];
            m[k] = m[swap];
            m[swap] = t;
            sign = -sign;
        }
        for i in k + 1..N {
            for j in k + 1..N {
                m[i][j] = (m[i][j] * m[k][k] - m[i][k] * m[k][j]) / prev;
            }
        }
        prev = m[k][k];
    }
    sign * m[N - 1][N - 1]
}

fn print(m: Mat) {
    for i in 0..N {
        println!("  {} {} {} {}", m[i][0], m[i][1], m[i][2], m[i][3]);
    }
}

fn main() {
    let a: Mat = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]];
    let b: Mat = [[2, 0, 0, 1], [0, 2, 1, 0], [0, 1, 2, 0], [1, 0, 0, 2]];
    println!("a * b =");
    print(mul(a, b));
    println!("b * a =");
    print(mul(b, a));
    println!("b^5 =");
    print(pow(b, 5));

    // Fibonacci via the companion matrix embedded in the top-left corner.
    let mut f = [[0; N]; N];
    f[0][0] = 1;
    f[0][1] = 1;
    f[1][0] = 1;
    let f90 = pow(f, 90);
    println!("fib(90) = {}", f90[0][1]);

    println!("det(a) = {}", det(a));
    println!("det(b) = {}", det(b));
    let c: Mat = [[0, 2, 1, 3], [1, 0, 4, 1], [2, 5, 0, 2], [3, 1, 2, 0]];
    println!("det(c) = {}", det(c));
    println!("det(c * b) = {} = det(c) * det(b) = {}", det(mul(c, b)), det(c) * det(b));
}

// Arrays: literals, repeat expressions, indexing with usize, element assignment, empty
// arrays and arrays of bool and of every integer type.

fn sum(a: [i32; 5]) -> i32 {
    let mut s = 0;
    for i in 0..5 {
        s += a[i];
    }
    s
}

fn main() {
    let a = [5, 3, 8, 1, 9];
    println!("a[0] = {}, a[4] = {}, sum = {}", a[0], a[4], sum(a));

    let mut b = [0; 5];
    for i in 0..5 {
        b[i] = a[4 - i] * 10;
    }
    println!("b = {} {} {} {} {}", b[0], b[1], b[2], b[3], b[4]);

    // Index expressions are any usize expression.
    let i: usize = 2;
    println!("a[i + 1] = {}, a[i * 2] = {}, a[a[3] as usize] = {}", a[i + 1], a[i * 2], a[a[3] as usize]);

    // Compound assignment to elements.
    let mut c = [1u64, 2, 3];
    c[0] += 10;
    c[1] *= c[2];
    c[2] <<= 4;
    c[0] -= 1;
    println!("c = {} {} {}", c[0], c[1], c[2]);

    // Whole-array assignment.
    let mut d = [7; 3];
    println!("d before = {} {} {}", d[0], d[1], d[2]);
    d = [4, 5, 6];
    println!("d after = {} {} {}", d[0], d[1], d[2]);

    // Arrays of other element types.
    let flags = [true, false, true];
    let mut count = 0;
    for k in 0..3 {
        if flags[k] {
            count += 1;
        }
    }
    println!("true flags = {}", count);
    let wide: [i64; 2] = [-9000000000, 9000000000];
    let idx: [usize; 3] = [2, 0, 1];
    println!("wide = {} {}, permuted a = {} {} {}", wide[0], wide[1], a[idx[0]], a[idx[1]], a[idx[2]]);

    // An empty array and a one-element array.
    let empty: [i32; 0] = [];
    let _ = empty;
    let single = [42];
    println!("single = {}", single[0]);

    // A repeat of a large length.
    let big = [3u64; 1000];
    let mut total: u64 = 0;
    for k in 0..1000 {
        total += big[k];
    }
    println!("total = {}", total);

    // Array literals with computed elements.
    let x = 4;
    let e = [x, x * x, x * x * x, -x];
    println!("e = {} {} {} {}", e[0], e[1], e[2], e[3]);

    // Copying an array and changing the copy.
    let mut f = e;
    f[3] = 0;
    println!("e[3] = {}, f[3] = {}", e[3], f[3]);
}

// Array lengths computed from constant expressions over usize constants.

const N: usize = 3;
const W: usize = N * 2;
const H: usize = W + 1;
const CELLS: usize = W * H;
const HALF: usize = CELLS / 2 - 1;

#[derive(Clone, Copy)]
struct Board {
    cells: [[u64; W]; H],
    marks: [bool; N * 2 + 1],
}

const ROW: [i64; N * 2] = [1, 2, 3, 4, 5, 6];

fn total(a: [i64; N * 2]) -> i64 {
    let mut s = 0;
    for i in 0..W {
        s += a[i];
    }
    s
}

fn doubled(a: [i64; W]) -> [i64; 2 * N] {
    let mut r = [0; 2 * N];
    for i in 0..W {
        r[i] = a[i] * 2;
    }
    r
}

fn main() {
    println!("N = {}, W = {}, H = {}, CELLS = {}, HALF = {}", N, W, H, CELLS, HALF);
    println!("total(ROW) = {}", total(ROW));
    println!("total(doubled(ROW)) = {}", total(doubled(ROW)));

    let mut b = Board { cells: [[0; W]; H], marks: [false; H] };
    let mut k: u64 = 0;
    for i in 0..H {
        for j in 0..W {
            b.cells[i][j] = k;
            k += 1;
        }
        b.marks[i] = i % 2 == 0;
    }
    println!("last cell = {}, marks[6] = {}", b.cells[H - 1][W - 1], b.marks[6]);

    let flat = [7u64; CELLS];
    let mut s: u64 = 0;
    for i in 0..CELLS {
        s += flat[i];
    }
    println!("flat sum = {}", s);

    let lit: [i32; 4 - 1] = [10, 20, 30];
    println!("lit[2] = {}", lit[2]);
    let half = [1; HALF + 1];
    println!("half[HALF] = {}", half[HALF]);
    let one: [i32; (N + 1) / 4] = [99];
    println!("one[0] = {}", one[0]);
}

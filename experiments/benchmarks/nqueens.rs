// Counts the solutions of the n-queens problem by backtracking over arrays.
fn solve(row: usize, n: usize, cols: [bool; 16], d1: [bool; 32], d2: [bool; 32]) -> u64 {
    if row == n {
        return 1;
    }
    let mut count = 0;
    for c in 0..n {
        if !cols[c] && !d1[row + c] && !d2[row + n - c] {
            let mut cols2 = cols;
            let mut d12 = d1;
            let mut d22 = d2;
            cols2[c] = true;
            d12[row + c] = true;
            d22[row + n - c] = true;
            count += solve(row + 1, n, cols2, d12, d22);
        }
    }
    count
}

fn main() {
    let n = 12;
    println!("{}", solve(0, n, [false; 16], [false; 32], [false; 32]));
}

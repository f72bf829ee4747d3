// N-queens: count all solutions for N = 1..8 by backtracking over column placements,
// and print the first solution for N = 8.

const MAX: usize = 8;

fn safe(cols: [usize; MAX], row: usize, col: usize) -> bool {
    for r in 0..row {
        let c = cols[r];
        if c == col {
            return false;
        }
        let dr = row - r;
        let dc = if c > col { c - col } else { col - c };
        if dr == dc {
            return false;
        }
    }
    true
}

fn solve(n: usize, row: usize, cols: [usize; MAX]) -> i32 {
    if row == n {
        return 1;
    }
    let mut count = 0;
    for col in 0..n {
        if safe(cols, row, col) {
            let mut next = cols;
            next[row] = col;
            count += solve(n, row + 1, next);
        }
    }
    count
}

fn first(n: usize) -> [usize; MAX] {
    // Iterative backtracking: the first solution in lexicographic order.
    let mut cols = [0; MAX];
    let mut r = 0;
    let mut c = 0;
    loop {
        if r == n {
            return cols;
        }
        let mut placed = false;
        while c < n {
            if safe(cols, r, c) {
                cols[r] = c;
                placed = true;
                break;
            }
            c += 1;
        }
        if placed {
            r += 1;
            c = 0;
        } else {
            if r == 0 {
                return cols;
            }
            r -= 1;
            c = cols[r] + 1;
        }
    }
}

fn main() {
    for n in 1..=MAX {
        println!("{}-queens: {} solutions", n, solve(n, 0, [0; MAX]));
    }
    let s = first(MAX);
    for r in 0..MAX {
        println!("row {}: column {}", r, s[r]);
    }
}

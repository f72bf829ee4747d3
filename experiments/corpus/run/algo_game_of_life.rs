// Conway's Game of Life on a 16x16 torus: a glider and a blinker, printed as bitmasks.

const S: usize = 16;

type Board = [[bool; S]; S];

fn step(b: Board) -> Board {
    let mut n = [[false; S]; S];
    for i in 0..S {
        for j in 0..S {
            let mut c = 0;
            for di in 0..3 {
                for dj in 0..3 {
                    if di == 1 && dj == 1 {
                        continue;
                    }
                    let r = (i + S + di - 1) % S;
                    let k = (j + S + dj - 1) % S;
                    c += b[r][k] as i32;
                }
            }
            n[i][j] = if b[i][j] { c == 2 || c == 3 } else { c == 3 };
        }
    }
    n
}

fn population(b: Board) -> i32 {
    let mut p = 0;
    for i in 0..S {
        for j in 0..S {
            if b[i][j] {
                p += 1;
            }
        }
    }
    p
}

fn row_mask(b: Board, i: usize) -> u64 {
    let mut m = 0;
    for j in 0..S {
        m = m << 1 | b[i][j] as u64;
    }
    m
}

fn main() {
    let mut b = [[false; S]; S];
    // A glider.
    b[0][1] = true;
    b[1][2] = true;
    b[2][0] = true;
    b[2][1] = true;
    b[2][2] = true;
    // A blinker.
    b[10][10] = true;
    b[10][11] = true;
    b[10][12] = true;
    for gen in 0..=64 {
        if gen % 16 == 0 {
            println!("generation {}: population {}", gen, population(b));
            for i in 0..S {
                let m = row_mask(b, i);
                if m != 0 {
                    println!("  row {}: {}", i, m);
                }
            }
        }
        b = step(b);
    }
}

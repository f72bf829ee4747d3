// Nested (two- and three-dimensional) arrays: element and row assignment, row copies,
// and a transpose.

const R: usize = 3;
const C: usize = 4;

fn transpose(m: [[i32; C]; R]) -> [[i32; R]; C] {
    let mut t = [[0; R]; C];
    for i in 0..R {
        for j in 0..C {
            t[j][i] = m[i][j];
        }
    }
    t
}

fn row_sum(row: [i32; C]) -> i32 {
    let mut s = 0;
    for j in 0..C {
        s += row[j];
    }
    s
}

fn main() {
    let mut m = [[0; C]; R];
    for i in 0..R {
        for j in 0..C {
            m[i][j] = (i * 10 + j) as i32;
        }
    }
    for i in 0..R {
        println!("m[{}] = {} {} {} {} (sum {})", i, m[i][0], m[i][1], m[i][2], m[i][3], row_sum(m[i]));
    }

    let t = transpose(m);
    for j in 0..C {
        println!("t[{}] = {} {} {}", j, t[j][0], t[j][1], t[j][2]);
    }

    // A row copy is independent.
    let mut row = m[1];
    row[0] = -1;
    println!("row[0] = {}, m[1][0] = {}", row[0], m[1][0]);

    // Assigning a whole row.
    m[2] = [7, 7, 7, 7];
    m[0] = m[2];
    m[0][3] = 8;
    println!("m[0] = {} {}, m[2][3] = {}", m[0][0], m[0][3], m[2][3]);

    // Three dimensions.
    let mut cube = [[[0u64; 2]; 3]; 4];
    let mut n: u64 = 1;
    for a in 0..4 {
        for b in 0..3 {
            for c in 0..2 {
                cube[a][b][c] = n;
                n *= 2;
            }
        }
    }
    println!("cube[3][2][1] = {}, cube[1][1][0] = {}", cube[3][2][1], cube[1][1][0]);
    cube[3][2][1] += 1;
    println!("after += 1: {}", cube[3][2][1]);

    // Literal nested arrays.
    let lit = [[1, 2], [3, 4], [5, 6]];
    println!("lit = {} {} {}", lit[0][1], lit[1][0], lit[2][1]);

    // Pascal's triangle in a 2D array.
    let mut p = [[0u64; 12]; 12];
    for i in 0..12 {
        p[i][0] = 1;
        for j in 1..=i {
            p[i][j] = p[i - 1][j - 1] + p[i - 1][j];
        }
    }
    println!("C(11, 5) = {}, C(11, 11) = {}", p[11][5], p[11][11]);
}

// An out-of-bounds index deep inside nested calls and loops panics there, after all the
// output of the outer frames so far.

#[derive(Clone, Copy)]
struct Grid {
    cells: [[i32; 4]; 3],
}

fn cell(g: Grid, r: usize, c: usize) -> i32 {
    g.cells[r][c]
}

fn row_sum(g: Grid, r: usize, width: usize) -> i32 {
    let mut s = 0;
    for c in 0..width {
        s += cell(g, r, c);
    }
    s
}

fn total(g: Grid, rows: usize, width: usize) -> i32 {
    let mut t = 0;
    for r in 0..rows {
        let s = row_sum(g, r, width);
        println!("row {} sum {}", r, s);
        t += s;
    }
    t
}

fn main() {
    let mut g = Grid { cells: [[1; 4]; 3] };
    g.cells[2][3] = 100;
    println!("total 3x4 = {}", total(g, 3, 4));
    println!("total 4x4 = {}", total(g, 4, 4));
    println!("not reached");
}

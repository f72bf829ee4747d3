// Assignment is the exception to left-to-right evaluation: the right-hand side first, then
// the index expressions of the place from left to right.

#[derive(Clone, Copy)]
struct Grid {
    cells: [[i32; 3]; 3],
    total: i32,
}

fn f(n: i32) -> usize {
    println!("  f({})", n);
    n as usize
}

fn g(n: i32) -> i32 {
    println!("  g({})", n);
    n
}

fn main() {
    let mut a = [[0; 3]; 3];
    println!("a[f(1)][f(2)] = g(3):");
    a[f(1)][f(2)] = g(3);
    println!("a[1][2] = {}", a[1][2]);

    println!("a[f(1)][f(2)] += g(4):");
    a[f(1)][f(2)] += g(4);
    println!("a[1][2] = {}", a[1][2]);

    println!("a[f(0)][f(0)] -= g(5) * g(6):");
    a[f(0)][f(0)] -= g(5) * g(6);
    println!("a[0][0] = {}", a[0][0]);

    let mut grid = Grid { cells: [[1; 3]; 3], total: 0 };
    println!("grid.cells[f(2)][f(1)] = g(9):");
    grid.cells[f(2)][f(1)] = g(9);
    println!("grid.total += grid.cells[f(2)][f(1)] + g(1):");
    grid.total += grid.cells[f(2)][f(1)] + g(1);
    println!("total = {}", grid.total);

    println!("reading a[i] evaluates i first, even if i's block writes a:");
    let mut b = [1, 2, 3];
    let r = b[{
        b[0] = 100;
        0
    }];
    println!("r = {}", r);

    println!("the right-hand side sees the old value:");
    let mut c = [5, 6, 7];
    c[f(0)] = c[f(1)] + c[f(2)];
    println!("c = {} {} {}", c[0], c[1], c[2]);

    println!("a right-hand side that writes the same array:");
    let mut d = [0, 0, 0];
    d[f(1)] = {
        d[1] = 50;
        d[2] = 60;
        g(7)
    };
    println!("d = {} {} {}", d[0], d[1], d[2]);

    println!("compound shift with a call on each side:");
    let mut e = [1i64, 1, 1];
    e[f(2)] <<= g(10);
    println!("e[2] = {}", e[2]);
}

// `[e; N]` evaluates `e` exactly once, even when N is 0 or 1, and copies the value.

#[derive(Clone, Copy)]
struct Cell {
    id: i32,
    alive: bool,
}

const N: usize = 3;

fn make(n: i32) -> i32 {
    println!("make({})", n);
    n
}

fn make_cell(n: i32) -> Cell {
    println!("make_cell({})", n);
    Cell { id: n, alive: n % 2 == 0 }
}

fn main() {
    println!("zero copies:");
    let z = [make(1); 0];
    let _ = z;
    println!("one copy:");
    let o = [make(2); 1];
    println!("o[0] = {}", o[0]);
    println!("five copies:");
    let f = [make(3); 5];
    println!("f[4] = {}", f[4]);

    println!("nested repeat:");
    let g = [[make(4); 2]; N];
    println!("g[2][1] = {}", g[2][1]);

    println!("repeat of a struct:");
    let mut cells = [make_cell(6); 4];
    cells[1].id = 60;
    println!("cells: {} {} {} {}", cells[0].id, cells[1].id, cells[2].alive, cells[3].id);

    println!("repeat of an array value:");
    let row = [make(7), make(8)];
    let mut grid = [row; 3];
    grid[0][0] = 70;
    println!("grid: {} {} {}", grid[0][0], grid[1][0], grid[2][1]);

    println!("repeat of a block with side effects:");
    let mut counter = 0;
    let h = [{
        counter += 1;
        counter * 10
    }; 4];
    println!("counter = {}, h = {} {}", counter, h[0], h[3]);

    println!("repeat inside a loop runs once per iteration:");
    for i in 0..3 {
        let r = [make(i); 2];
        println!("r[1] = {}", r[1]);
    }

    println!("repeat with a const expression length:");
    let w = [make(9); N * 2 + 1];
    println!("w[6] = {}", w[6]);
}

#[derive(Clone, Copy)]
struct Grid {
    cells: [[i32; 2]; 2],
}

fn main() {
    let g = Grid { cells: [[0; 2]; 2] };
    g.cells[1][0] += 1; //~ ERROR cannot assign to `g.cells[_][_]`, as `g` is not declared as mutable
    println!("{}", g.cells[1][0]);
}

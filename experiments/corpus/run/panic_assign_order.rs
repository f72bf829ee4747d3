// In an assignment the right-hand side runs before the index of the place is evaluated and
// bounds-checked: all three calls print before the panic.

fn f(n: usize) -> usize {
    println!("f({})", n);
    n
}

fn g(n: i32) -> i32 {
    println!("g({})", n);
    n
}

fn main() {
    let mut a = [[0; 2]; 2];
    a[f(1)][f(0)] = g(1);
    println!("a[1][0] = {}", a[1][0]);
    a[f(1)][f(5)] = g(2);
    println!("not reached");
}

const N: usize = 4;

fn f(N: usize) -> usize { //~ ERROR refutable pattern in function argument
    N
}

fn main() {
    println!("{}", f(1));
}

fn three() -> i32 {
    3
}

const N: i32 = three() + 1; //~ ERROR cannot call non-const function `three` in constants

fn main() {
    println!("{}", N);
}

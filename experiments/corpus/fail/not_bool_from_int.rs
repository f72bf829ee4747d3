// `as` does not convert integers to bool.

fn main() {
    let n = 1;
    let b = n as bool; //~ ERROR cannot cast `i32` as `bool`
    println!("{}", b);
}

fn log(x: i32) {
    println!("{}", x);
    return x; //~ ERROR mismatched types
}

fn main() {
    log(1);
}

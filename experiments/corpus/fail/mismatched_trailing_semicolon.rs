fn double(x: i32) -> i32 { //~ ERROR mismatched types
    x * 2;
}

fn main() {
    println!("{}", double(2));
}

// rustc: accepts
trait Shape { //~ ERROR unsupported
    fn area(&self) -> i32;
}

fn main() {
    println!("{}", 1);
}

// rustc: accepts
fn id<T>(x: T) -> T { //~ ERROR unsupported
    x
}

fn main() {
    println!("{}", id(5));
}

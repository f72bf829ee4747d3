// rustc: accepts
fn first(a: &[i32; 3]) -> i32 { //~ ERROR unsupported
    a[0]
}

fn main() {
    let a = [1, 2, 3];
    println!("{}", first(&a)); //~ ERROR unsupported
}

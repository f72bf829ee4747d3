// rustc: accepts
fn main() {
    let x = 3;
    let y = match x { //~ ERROR unsupported
        0 => 10,
        _ => 20,
    };
    println!("{}", y);
}

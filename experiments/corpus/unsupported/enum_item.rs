// rustc: accepts
#[derive(Clone, Copy)]
enum Color { //~ ERROR unsupported
    Red,
    Green,
}

fn main() {
    let _ = Color::Red;
    let _ = Color::Green;
    println!("{}", 1);
}

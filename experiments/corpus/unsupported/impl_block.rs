// rustc: accepts
#[derive(Clone, Copy)]
struct P {
    x: i32,
}

impl P { //~ ERROR unsupported
    fn get(self) -> i32 {
        self.x
    }
}

fn main() {
    println!("{}", P { x: 1 }.get());
}

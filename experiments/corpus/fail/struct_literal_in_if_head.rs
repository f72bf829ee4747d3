#[derive(Clone, Copy)]
struct P {
    x: i32,
}

fn main() {
    if P { x: 1 }.x > 0 { //~ ERROR struct literals are not allowed here
        println!("positive");
    }
}

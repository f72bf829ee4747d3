fn yield() -> i32 { //~ ERROR expected identifier, found reserved keyword `yield`
    1
}

fn main() {
    println!("{}", 1);
}

#[derive(Clone, Copy)]
struct S {
    async: i32, //~ ERROR expected identifier, found keyword `async`
}

fn main() {
    println!("{}", 1);
}

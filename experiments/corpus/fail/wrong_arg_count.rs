fn add(a: i32, b: i32) -> i32 {
    a + b
}

fn main() {
    println!("{}", add(1)); //~ ERROR this function takes 2 arguments but 1 argument was supplied
}

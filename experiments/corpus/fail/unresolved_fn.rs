fn helper() -> i32 {
    1
}

fn main() {
    println!("{}", helpr()); //~ ERROR cannot find function `helpr` in this scope
}

fn check(x: i32) -> i32 {
    if x > 2 {
        continue; //~ ERROR `continue` outside of a loop
    }
    x
}

fn main() {
    println!("{}", check(1));
}

// Division by zero panics at run time, after the output so far has been printed.

fn divide(a: i32, b: i32) -> i32 {
    a / b
}

fn main() {
    let mut d = 3;
    while d >= 0 {
        println!("100 / {} = {}", d, divide(100, d));
        d -= 1;
    }
    println!("not reached");
}

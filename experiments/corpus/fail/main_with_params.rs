fn main(x: i32) { //~ ERROR `main` function has wrong type
    println!("{}", x);
}

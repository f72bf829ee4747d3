const I: i32 = 0;

fn main() {
    for I in 0..3 { //~ ERROR refutable pattern in `for` loop binding
        println!("{}", I);
    }
}

// rustc: accepts
fn forever() -> ! { //~ ERROR unsupported
    loop {}
}

fn main() {
    if false {
        forever();
    }
    println!("{}", 1);
}

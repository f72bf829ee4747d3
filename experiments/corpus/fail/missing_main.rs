// A crate without `fn main()` at its root.

fn mian() {
    println!("typo");
} //~ ERROR `main` function not found in crate

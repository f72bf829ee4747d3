// usize and u64 have the same size but are different types.

fn main() {
    let a: u64 = 1;
    let b: usize = a; //~ ERROR mismatched types
    println!("{}", b);
}

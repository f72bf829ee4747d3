// Indexing past the end of an array panics.

fn main() {
    let a = [10, 20, 30, 40];
    let mut i = 0;
    loop {
        println!("a[{}] = {}", i, a[i]);
        i += 1;
    }
}

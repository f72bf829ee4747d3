// An out-of-bounds index into a const array inside a function body is a run-time panic,
// not a compile error.

const TABLE: [u64; 5] = [1, 1, 2, 6, 24];

fn factorial(n: usize) -> u64 {
    TABLE[n]
}

fn main() {
    for n in 0..10 {
        println!("{}! = {}", n, factorial(n));
    }
}

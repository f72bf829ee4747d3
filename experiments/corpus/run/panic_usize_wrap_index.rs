// A usize index computed by wrapping subtraction is huge and out of bounds.

fn previous(a: [i64; 3], i: usize) -> i64 {
    a[i - 1]
}

fn main() {
    let a = [5, 6, 7];
    println!("previous(a, 2) = {}", previous(a, 2));
    println!("previous(a, 1) = {}", previous(a, 1));
    println!("0usize - 1 = {}", 0usize - 1);
    println!("previous(a, 0) = {}", previous(a, 0));
}

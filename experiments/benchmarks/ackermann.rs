// The Ackermann function: deep, irregular recursion.
fn ack(m: u64, n: u64) -> u64 {
    if m == 0 {
        n + 1
    } else if n == 0 {
        ack(m - 1, 1)
    } else {
        ack(m - 1, ack(m, n - 1))
    }
}

fn main() {
    let mut total = 0;
    for n in 0..8 {
        total += ack(2, n * 200);
    }
    println!("{} {}", total, ack(3, 9));
}

// Sieve of Eratosthenes over 4 million numbers, repeated.
fn sieve(limit: usize) -> usize {
    let mut composite = [false; 4000001];
    let mut count = 0;
    let mut i = 2;
    while i <= limit {
        if !composite[i] {
            count += 1;
            let mut j = i * i;
            while j <= limit {
                composite[j] = true;
                j += i;
            }
        }
        i += 1;
    }
    count
}

fn main() {
    let mut total = 0;
    for _round in 0..3 {
        total += sieve(4000000);
    }
    println!("{}", total);
}

// i64::MIN % -1 panics, here through a compound assignment inside a function.

fn rem_all(ds: [i64; 4]) -> i64 {
    let mut acc = 0;
    for i in 0..4 {
        let mut x = i64::MIN;
        println!("i64::MIN % {}", ds[i]);
        x %= ds[i];
        println!("  = {}", x);
        acc += x;
    }
    acc
}

fn main() {
    println!("result = {}", rem_all([7, 5, -1, 3]));
}

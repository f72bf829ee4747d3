// i32::MIN % -1 panics too, although the mathematical result is 0.

fn main() {
    let divisors = [3, -3, 1, -1, 2];
    let mut i = 0;
    while i < 5 {
        let d = divisors[i];
        println!("i32::MIN % {} = {}", d, i32::MIN % d);
        i += 1;
    }
    println!("not reached");
}

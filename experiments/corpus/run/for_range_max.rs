// Ranges that end at the maximum of their type: `..=MAX` stops after MAX without
// overflowing, and `..MAX` stops before it.

fn main() {
    for i in i64::MAX - 2..=i64::MAX {
        println!("i64: {}", i);
    }
    for i in u64::MAX - 2..=u64::MAX {
        println!("u64: {}", i);
    }
    for i in usize::MAX - 1..=usize::MAX {
        println!("usize: {}", i);
    }
    for i in i32::MAX - 1..=i32::MAX {
        println!("i32: {}", i);
    }
    for i in u64::MAX - 2..u64::MAX {
        println!("u64 exclusive: {}", i);
    }
    for i in i64::MIN..=i64::MIN + 1 {
        println!("i64 min: {}", i);
    }
    for i in i32::MIN..i32::MIN + 2 {
        println!("i32 min: {}", i);
    }
    // A range that is exactly MAX..=MAX runs once.
    let mut once = 0;
    for _k in usize::MAX..=usize::MAX {
        once += 1;
    }
    println!("MAX..=MAX ran {} time(s)", once);
    // MAX..MAX is empty.
    let mut never = 0;
    for _k in u64::MAX..u64::MAX {
        never += 1;
    }
    println!("MAX..MAX ran {} time(s)", never);

    // The full u64 range, left with break after a few steps from the top half.
    let mut steps = 0;
    for i in 0..=u64::MAX {
        steps += 1;
        if i == 4 {
            break;
        }
    }
    println!("steps before break: {}", steps);

    // Sum the top 1000 values of u64 with wrapping addition.
    let mut sum: u64 = 0;
    for i in u64::MAX - 999..=u64::MAX {
        sum += i;
    }
    println!("wrapped sum of the top 1000 u64 values: {}", sum);

    // Counting down by hand to MIN needs care too.
    let mut j: i32 = i32::MIN + 3;
    loop {
        println!("down: {}", j);
        if j == i32::MIN {
            break;
        }
        j -= 1;
    }
}

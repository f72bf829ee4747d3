// `for` over integer ranges: half-open and inclusive, empty ranges, `for mut`, and the
// range is evaluated exactly once.

fn lo() -> i32 {
    println!("  evaluating lo");
    2
}

fn hi() -> i32 {
    println!("  evaluating hi");
    5
}

fn main() {
    let mut s = 0;
    for i in 0..10 {
        s += i;
    }
    println!("sum 0..10 = {}", s);

    let mut s = 0;
    for i in 0..=10 {
        s += i;
    }
    println!("sum 0..=10 = {}", s);

    println!("range evaluated once:");
    for i in lo()..hi() {
        println!("  i = {}", i);
    }
    println!("inclusive range evaluated once:");
    for i in lo()..=hi() {
        println!("  i = {}", i);
    }

    // Changing the end variable inside the loop does not change the iteration count.
    let mut n = 3;
    let mut iterations = 0;
    for _i in 0..n {
        n += 10;
        iterations += 1;
    }
    println!("iterations = {}, n = {}", iterations, n);

    // Empty and single-element ranges.
    let mut count = 0;
    for _k in 5..3 {
        count += 1;
    }
    for _k in 3..3 {
        count += 1;
    }
    for _k in 5..=3 {
        count += 1;
    }
    println!("empty ranges ran {} times", count);
    for i in 3..=3 {
        println!("single: {}", i);
    }

    // `for mut`: the binding is a fresh mutable copy each iteration.
    for mut i in 0..4 {
        i *= 10;
        println!("mut i = {}", i);
    }

    // Ranges of the other integer types, including negative bounds.
    let mut t: i64 = 0;
    for i in -5i64..5 {
        t += i * i;
    }
    println!("sum of squares -5..5 = {}", t);
    let mut u: u64 = 1;
    for i in 1u64..=20 {
        u *= i;
    }
    println!("20! = {}", u);
    let arr = [3, 1, 4, 1, 5, 9, 2, 6];
    let mut total = 0;
    for i in 0..8 {
        total += arr[i];
    }
    println!("array total = {}", total);
    // The element type comes from the use as an index: usize.
    let start: usize = 6;
    for i in start..8 {
        println!("tail element {}", arr[i]);
    }

    // Expressions as bounds, with operators binding tighter than `..`.
    let k = 2;
    for i in k * 2..k * 2 + 3 {
        println!("computed bounds: {}", i);
    }
    for i in -k..=-k + 1 {
        println!("negative bounds: {}", i);
    }

    // break and continue in for loops.
    let mut found = 0;
    for i in 1..100 {
        if i % 7 != 0 {
            continue;
        }
        if i > 30 {
            found = i;
            break;
        }
    }
    println!("first multiple of 7 above 30: {}", found);

    // Nested for loops building a multiplication table checksum.
    let mut check = 0;
    for i in 1..=9 {
        for j in i..=9 {
            check += i * j;
        }
    }
    println!("table checksum = {}", check);
}

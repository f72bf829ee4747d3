// `break value` makes a `loop` an expression with that value; `break 'l value` leaves an
// outer loop with a value.

#[derive(Clone, Copy)]
struct Found {
    index: usize,
    value: i64,
}

fn first_power_of_two_at_least(n: u64) -> u64 {
    let mut p = 1;
    loop {
        if p >= n {
            break p;
        }
        p *= 2;
    }
}

fn search(arr: [i64; 6], target: i64) -> Found {
    let mut i = 0;
    loop {
        if i == 6 {
            break Found { index: 99, value: -1 };
        }
        if arr[i] == target {
            break Found { index: i, value: arr[i] };
        }
        i += 1;
    }
}

fn main() {
    let x = loop {
        break 5;
    };
    println!("x = {}", x);

    println!("pow2 >= 1000: {}", first_power_of_two_at_least(1000));
    println!("pow2 >= 1: {}", first_power_of_two_at_least(1));

    let arr = [4, 8, 15, 16, 23, 42];
    let f = search(arr, 16);
    println!("found 16 at {} (value {})", f.index, f.value);
    let g = search(arr, 7);
    println!("found 7 at {} (value {})", g.index, g.value);

    // The loop's type comes from the expected type: this literal is u64.
    let big: u64 = loop {
        break 18446744073709551615;
    };
    println!("big = {}", big);

    // break 'outer with a value from an inner loop.
    let code = 'outer: loop {
        let mut i = 0;
        loop {
            i += 1;
            if i * i > 50 {
                break 'outer i * 1000;
            }
            if i > 100 {
                break;
            }
        }
    };
    println!("code = {}", code);

    // A loop value computed inside a for loop, using the same label name twice.
    let mut acc = 0;
    for n in 1..6 {
        let r = 'find: loop {
            let mut d = 2;
            loop {
                if d * d > n {
                    break 'find n;
                }
                if n % d == 0 {
                    break 'find d;
                }
                d += 1;
            }
        };
        println!("smallest factor of {} is {}", n, r);
        acc += r;
    }
    println!("acc = {}", acc);

    // break with a bool and with an array.
    let mut k = 0;
    let is_even = loop {
        k += 1;
        if k == 7 {
            break k % 2 == 0;
        }
    };
    println!("is_even = {}", is_even);
    let arr2 = loop {
        break [k, k * 2, k * 3];
    };
    println!("arr2 = {} {} {}", arr2[0], arr2[1], arr2[2]);

    // `break` without a value in a loop used as a statement.
    let mut steps = 0;
    loop {
        steps += 1;
        if steps == 3 {
            break;
        }
    }
    println!("steps = {}", steps);

    // A loop value used directly in arithmetic.
    let y = 10 + loop {
        break 32;
    };
    println!("y = {}", y);
}

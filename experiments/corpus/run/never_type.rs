// Divergence: `return`, `break`, `continue` and a `loop` without `break` have type `!`,
// which coerces to any type.

fn early(x: i32) -> i32 {
    let y: i32 = if x > 0 { x } else { return -1; };
    y * 2
}

fn block_return() -> i32 {
    let x: i32 = {
        return 5;
    };
    x + 1
}

fn both_branches_return(x: i32) -> i32 {
    if x % 2 == 0 {
        return x / 2;
    } else {
        return 3 * x + 1;
    }
}

fn loop_forever_never_called() -> i32 {
    loop {}
}

fn loop_with_return(limit: u64) -> u64 {
    let mut i: u64 = 0;
    loop {
        i += 7;
        if i > limit {
            return i;
        }
    }
}

fn return_in_arg(x: i32) -> i32 {
    let v = both_branches_return(if x > 100 { return 0; } else { x });
    v + 1000
}

fn diverging_tail(x: i64) -> i64 {
    if x > 10 {
        return x;
    }
    return -x;
}

fn main() {
    println!("early(4) = {}, early(-4) = {}", early(4), early(-4));
    println!("block_return() = {}", block_return());
    println!("both_branches_return: {} {}", both_branches_return(10), both_branches_return(7));
    println!("loop_with_return(100) = {}", loop_with_return(100));
    println!("return_in_arg: {} {}", return_in_arg(6), return_in_arg(600));
    println!("diverging_tail: {} {}", diverging_tail(20), diverging_tail(5));

    if false {
        loop {}
    }
    if false {
        let never: i32 = loop_forever_never_called();
        println!("unreachable {}", never);
    }

    // continue and break in value positions.
    let mut kept = 0;
    for i in 0..10 {
        let v: i32 = if i % 3 == 0 { continue; } else { i };
        kept += v;
    }
    println!("kept = {}", kept);

    let mut n = 0;
    loop {
        n += 1;
        let step: i64 = if n < 5 { n } else { break; };
        let _ = step;
    }
    println!("n = {}", n);

    // A diverging arm inside an operand is fine when the if still has a type.
    let mut i = 0;
    let mut total = 0;
    while i < 6 {
        i += 1;
        total += if i == 4 { continue; } else { i } * 10;
    }
    println!("total = {}", total);

    // Diverging expressions inside array elements.
    let mut j = 0;
    let arr = loop {
        j += 1;
        if j < 3 {
            continue;
        }
        break [j, if j > 0 { j } else { return; }];
    };
    println!("arr = {} {}", arr[0], arr[1]);

    // A return in main ends the program without printing the rest.
    if kept > 0 {
        println!("returning from main");
        return;
    }
    println!("never printed");
}

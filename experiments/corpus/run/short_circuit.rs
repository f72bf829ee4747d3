// `&&` and `||` evaluate their right operand only when needed; `&` and `|` on bool always do.

fn t(n: i32) -> bool {
    println!("  t{}", n);
    true
}

fn f(n: i32) -> bool {
    println!("  f{}", n);
    false
}

fn safe_div_is_big(a: i32, b: i32) -> bool {
    b != 0 && a / b > 10
}

fn main() {
    println!("t && f:");
    let r = t(1) && f(2);
    println!("= {}", r);
    println!("f && t:");
    let r = f(1) && t(2);
    println!("= {}", r);
    println!("t || f:");
    let r = t(1) || f(2);
    println!("= {}", r);
    println!("f || t:");
    let r = f(1) || t(2);
    println!("= {}", r);
    println!("f || f && t (&& binds tighter):");
    let r = f(1) || f(2) && t(3);
    println!("= {}", r);
    println!("t || f && t:");
    let r = t(1) || f(2) && t(3);
    println!("= {}", r);
    println!("(t || f) && f:");
    let r = (t(1) || f(2)) && f(3);
    println!("= {}", r);
    println!("f & t (no short circuit):");
    let r = f(1) & t(2);
    println!("= {}", r);
    println!("t | f (no short circuit):");
    let r = t(1) | f(2);
    println!("= {}", r);
    println!("!f && !t:");
    let r = !f(1) && !t(2);
    println!("= {}", r);

    println!("guarded division: {} {} {}", safe_div_is_big(100, 0), safe_div_is_big(100, 5), safe_div_is_big(5, 5));

    // In conditions of if and while.
    let mut i = 0;
    while i < 10 && i * i < 20 {
        i += 1;
    }
    println!("loop stopped at {}", i);
    if f(10) || t(11) && t(12) {
        println!("branch taken");
    }

    // Counting how many times the right side runs.
    let mut calls = 0;
    let mut k = 0;
    while k < 6 {
        if k % 2 == 0 || {
            calls += 1;
            k > 3
        } {
            println!("k = {} accepted", k);
        }
        k += 1;
    }
    println!("right side ran {} times", calls);
}

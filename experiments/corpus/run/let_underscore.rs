// `let _ = e;` evaluates `e` and discards it; names starting with `_` are ordinary bindings.

#[derive(Clone, Copy)]
struct Pair {
    a: i32,
    b: i32,
}

fn noisy(n: i32) -> i32 {
    println!("noisy({})", n);
    n * 2
}

fn make_pair(a: i32, b: i32) -> Pair {
    println!("make_pair({}, {})", a, b);
    Pair { a, b }
}

fn nothing() {
    println!("nothing()");
}

fn main() {
    let _ = noisy(1);
    let _ = make_pair(2, 3);
    let _ = nothing();
    let _ = [noisy(4), noisy(5)];
    let _: i64 = 3000000000;
    let _: u64 = noisy(6) as u64;
    let _ = {
        println!("block evaluated");
        7
    };
    let _ = if noisy(8) > 10 { 1 } else { 0 };

    let _x = noisy(9);
    println!("_x = {}", _x);
    let _x = _x + 1;
    println!("_x = {}", _x);

    // `let _` several times in a row does not clash.
    let _ = 1;
    let _ = true;
    let _ = make_pair(10, 20).b;

    // In a loop, the initializer runs each time.
    for i in 0..3 {
        let _ = noisy(100 + i);
    }

    let p = make_pair(4, 5);
    let _ = p;
    println!("p still usable: {} {}", p.a, p.b);
}

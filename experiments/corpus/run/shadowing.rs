// Shadowing: a new `let` hides an earlier binding, possibly with another type; inner
// blocks shadow temporarily.

fn value() -> i32 {
    7
}

fn shadow_param(x: i32) -> i64 {
    let x = x as i64;
    let x = x * 1000000000;
    x
}

fn main() {
    let x = 5;
    let x = x + 1;
    let x = x * 2;
    println!("x = {}", x);

    // Shadowing with a different type.
    let y: i32 = -1;
    let y = y as u64;
    println!("y = {}", y);
    let y = y > 1000;
    println!("y = {}", y);

    // Inner blocks.
    let z = 1;
    {
        let z = 2;
        {
            let z = 3;
            println!("innermost z = {}", z);
        }
        println!("inner z = {}", z);
    }
    println!("outer z = {}", z);

    // The initializer sees the previous binding.
    let w = 10;
    let w = {
        let w = w * 3;
        w + 1
    };
    println!("w = {}", w);

    // Shadowing in loops: each iteration starts from the outer binding.
    let acc = 100;
    for i in 0..3 {
        let acc = acc + i;
        println!("loop acc = {}", acc);
    }
    println!("acc after loop = {}", acc);

    // A mutable binding shadowed by an immutable one and back.
    let mut m = 1;
    m += 1;
    let m = m;
    let mut m = m * 10;
    m += 1;
    println!("m = {}", m);

    println!("shadow_param(3) = {}", shadow_param(3));

    // A local may have the name of a function: the function is still callable before it.
    let v = value();
    let value = v + 1;
    println!("value = {}", value);

    // A for binding shadows an outer local of the same name.
    let i = 1000;
    let mut sum = 0;
    for i in 0..4 {
        sum += i;
    }
    println!("i = {}, sum = {}", i, sum);

    // Shadowing inside if branches.
    let s = 4;
    let t = if s > 3 {
        let s = s * s;
        s + 1
    } else {
        let s = 0;
        s
    };
    println!("s = {}, t = {}", s, t);
}

// Blocks are expressions: their value is the tail expression, or () without one.
// Statements that start with a block-like expression end at its closing brace.

#[derive(Clone, Copy)]
struct Point {
    x: i32,
    y: i32,
}

fn square_plus_one(n: i64) -> i64 {
    let sq = {
        let t = n;
        t * t
    };
    {
        let one = 1;
        sq + one
    }
}

fn side_effect(label: i32) -> i32 {
    println!("side effect {}", label);
    label
}

fn main() {
    let a = {
        let x = 3;
        let y = 4;
        x * x + y * y
    };
    println!("a = {}", a);

    // Nested blocks with shadowing inside; the outer binding is untouched.
    let b = 10;
    let c = {
        let b = b * 2;
        {
            let b = b + 1;
            b * 3
        }
    };
    println!("b = {}, c = {}", b, c);

    println!("square_plus_one(12) = {}", square_plus_one(12));

    // A block as an operand and as a call argument.
    let d = { 2 } * { 3 + 4 };
    println!("d = {}", d);
    let e = square_plus_one({
        let k = 5;
        k - 2
    });
    println!("e = {}", e);

    // Block-like statements: these end at the closing brace.
    let p = Point { x: 7, y: 8 };
    { side_effect(1) };
    if p.x > 0 { 1 } else { 2 };
    loop {
        break 3;
    };
    // `.field` continues a block-like expression.
    {p}.x;
    let f = {p}.y + { p }.x;
    println!("f = {}", f);

    // A block whose last statement ends with `;` has value ().
    let mut counter = 0;
    let unit = {
        counter += 1;
    };
    let _ = unit;
    println!("counter = {}", counter);

    // Blocks as struct fields and array elements.
    let q = Point {
        x: {
            let t = 100;
            t / 7
        },
        y: { side_effect(2) * 2 },
    };
    let arr = [{ 1 }, { let z = 2; z * z }, { side_effect(3) }];
    println!("q = ({}, {}), arr = {} {} {}", q.x, q.y, arr[0], arr[1], arr[2]);

    // A block computing a boolean condition.
    if {
        let lim = 5;
        q.x > lim
    } {
        println!("q.x is larger than 5");
    }

    // Empty blocks have type ().
    {}
    let g = {
        {}
        { 42 }
    };
    println!("g = {}", g);
}

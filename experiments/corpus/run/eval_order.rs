// Operands, call arguments, array elements and struct literal fields are evaluated
// left to right, as written.

#[derive(Clone, Copy)]
struct Triple {
    a: i32,
    b: i32,
    c: i32,
}

fn v(n: i32) -> i32 {
    println!("  eval {}", n);
    n
}

fn three(x: i32, y: i32, z: i32) -> i32 {
    x * 100 + y * 10 + z
}

fn main() {
    println!("binary operators:");
    let r = v(1) + v(2) * v(3);
    println!("= {}", r);
    println!("nested parentheses:");
    let r = v(1) - (v(2) - v(3));
    println!("= {}", r);
    println!("comparison:");
    let r = v(4) < v(5);
    println!("= {}", r);
    println!("shifts and casts:");
    let r = (v(1) as i64) << v(2);
    println!("= {}", r);
    println!("unary:");
    let r = -v(7) + !v(8);
    println!("= {}", r);

    println!("call arguments:");
    let r = three(v(1), v(2), v(3));
    println!("= {}", r);
    println!("nested calls:");
    let r = three(v(1), three(v(2), v(3), v(4)), v(5));
    println!("= {}", r);

    println!("array elements:");
    let arr = [v(1), v(2), v(3)];
    println!("= {} {} {}", arr[0], arr[1], arr[2]);

    println!("struct fields in written order (c, a, b):");
    let t = Triple { c: v(3), a: v(1), b: v(2) };
    println!("= {} {} {}", t.a, t.b, t.c);

    println!("println! arguments:");
    println!("= {} {} {}", v(1), v(2), v(3));

    println!("index expression before the read:");
    let r = arr[v(2) as usize] + arr[v(0) as usize];
    println!("= {}", r);

    println!("let initializers in sequence:");
    let x = v(10);
    let y = v(x + 1);
    println!("= {}", x + y);

    println!("an if condition and then one branch:");
    let r = if v(1) > v(2) { v(3) } else { v(4) };
    println!("= {}", r);
}

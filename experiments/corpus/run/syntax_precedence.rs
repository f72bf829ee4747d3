// Operator precedence and associativity, casts among operators, and postfix chains.

#[derive(Clone, Copy)]
struct S {
    n: usize,
    arr: [i32; 3],
}

fn make() -> S {
    S { n: 2, arr: [7, 8, 9] }
}

fn row() -> [S; 2] {
    [make(), S { n: 1, arr: [1, 2, 3] }]
}

fn main() {
    // Left associativity of - / % << >>.
    println!("10 - 4 - 3 = {}", 10 - 4 - 3);
    println!("100 / 10 / 5 = {}", 100 / 10 / 5);
    println!("100 % 30 % 7 = {}", 100 % 30 % 7);
    println!("1 << 2 << 3 = {}", 1 << 2 << 3);
    println!("256 >> 2 >> 3 = {}", 256 >> 2 >> 3);
    println!("2 * 3 % 4 = {}, 2 * (3 % 4) = {}", 2 * 3 % 4, 2 * (3 % 4));

    // Unary operators bind tighter than `as`, which binds tighter than `*`.
    let x: i64 = 5;
    let y: i32 = 3;
    println!("-x as u64 = {}", -x as u64);
    println!("!y as i64 = {}", !y as i64);
    println!("x * y as i64 = {}", x * y as i64);
    println!("x as i32 > y = {}", x as i32 > y);
    println!("x as u64 >> 1 = {}", x as u64 >> 1);
    println!("(x as i32) < y = {}", (x as i32) < y);
    println!("(x as u64) << 62 = {}", (x as u64) << 62);
    println!("x as i32 == y = {}", x as i32 == y);
    println!("y as i64 as u64 as usize = {}", y as i64 as u64 as usize);
    println!("- -x = {}, !!y = {}, -!y = {}", - -x, !!y, -!y);
    println!("a < -1 with spaces: {}", y < -1);

    // The full ladder: * + << & ^ | == && ||.
    let r = 1 + 2 * 3 << 1 & 0xFF ^ 3 | 64 == 77 && true || false;
    println!("ladder = {}", r);
    let v = 1 + 2 * 3 << 1 & 0xFF ^ 3 | 64;
    println!("v = {}", v);
    println!("true || false && false = {}", true || false && false);
    println!("(true || false) && false = {}", (true || false) && false);
    println!("!true || true = {}", !true || true);

    // Postfix chains: calls, fields and indexes.
    println!("make().arr[1] = {}", make().arr[1]);
    println!("row()[1].arr[2] = {}", row()[1].arr[2]);
    println!("row()[0].n = {}", row()[0].n);
    let rs = row();
    println!("rs[rs[1].n].arr[rs[0].n] = {}", rs[rs[1].n].arr[rs[0].n]);
    println!("-make().arr[0] = {}", -make().arr[0]);

    // Struct literals in conditions need parentheses.
    if (S { n: 1, arr: [0; 3] }).n == 1 {
        println!("struct literal in an if condition");
    }
    let mut k = 0;
    while k < (S { n: 3, arr: [0; 3] }).n {
        k += 1;
    }
    println!("k = {}", k);
    for i in 0..(S { n: 2, arr: [5; 3] }).arr[0] {
        print_one(i);
    }
    // Parentheses around a block-like expression let it continue as an operand.
    let z = (if k > 2 { 10 } else { 20 }) + 1;
    println!("z = {}", z);
}

fn print_one(i: i32) {
    println!("for with a struct literal in the range: {}", i);
}

// Structs: literals (also with shorthand fields), nested structs, field reads and
// assignments, structs with array fields, and structs passed to and returned from functions.

#[derive(Clone, Copy)]
struct Point {
    x: i64,
    y: i64,
}

#[derive(Copy, Clone)]
struct Rect {
    min: Point,
    max: Point,
}

#[derive(Clone, Copy)]
struct Stats {
    count: usize,
    samples: [i32; 4],
    valid: bool,
    total: u64,
}

#[derive(Clone, Copy)]
struct Empty {}

fn point(x: i64, y: i64) -> Point {
    Point { x, y }
}

fn area(r: Rect) -> i64 {
    (r.max.x - r.min.x) * (r.max.y - r.min.y)
}

fn translate(mut r: Rect, dx: i64, dy: i64) -> Rect {
    r.min.x += dx;
    r.min.y += dy;
    r.max.x += dx;
    r.max.y += dy;
    r
}

fn grow(r: Rect, by: i64) -> Rect {
    Rect {
        min: point(r.min.x - by, r.min.y - by),
        max: Point { x: r.max.x + by, y: r.max.y + by },
    }
}

fn record(mut s: Stats, v: i32) -> Stats {
    if s.count < 4 {
        s.samples[s.count] = v;
        s.count += 1;
        s.total += v as u64;
    } else {
        s.valid = false;
    }
    s
}

fn empty() -> Empty {
    Empty {}
}

fn main() {
    let r = Rect { min: point(1, 2), max: point(4, 6) };
    println!("area = {}", area(r));
    let t = translate(r, 10, -10);
    println!("translated: ({}, {}) - ({}, {})", t.min.x, t.min.y, t.max.x, t.max.y);
    println!("original: ({}, {}) - ({}, {})", r.min.x, r.min.y, r.max.x, r.max.y);
    let g = grow(t, 2);
    println!("grown area = {}", area(g));

    // Nested field assignment on a mutable local.
    let mut m = r;
    m.max.y = 100;
    m.min = Point { x: 0, y: 0 };
    println!("m = ({}, {}) - ({}, {}), area {}", m.min.x, m.min.y, m.max.x, m.max.y, area(m));

    // Shorthand and explicit fields mixed, in any order.
    let x = 7;
    let p = Point { y: -3, x };
    println!("p = ({}, {})", p.x, p.y);

    // A struct with an array field.
    let mut s = Stats { count: 0, samples: [0; 4], valid: true, total: 0 };
    let mut v = 1;
    while v < 40 {
        s = record(s, v);
        v = v * 3 + 1;
    }
    println!("count = {}, valid = {}, total = {}", s.count, s.valid, s.total);
    println!("samples = {} {} {} {}", s.samples[0], s.samples[1], s.samples[2], s.samples[3]);
    s.samples[3] = -1;
    println!("after assignment: {}", s.samples[3]);

    // Field access on a call result and on a struct literal.
    println!("grow(...).max.x = {}", grow(r, 5).max.x);
    println!("literal field = {}", Point { x: 11, y: 12 }.y);

    // An empty struct is a value too.
    let e = empty();
    let _ = e;
    println!("done");
}

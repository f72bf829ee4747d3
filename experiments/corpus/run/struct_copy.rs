// All structs are Copy: assignment and passing copy the value, so changing the copy never
// changes the original.

#[derive(Clone, Copy)]
struct Counter {
    value: i32,
    history: [i32; 3],
}

#[derive(Clone, Copy)]
struct Outer {
    inner: Counter,
    tag: u64,
}

fn bump(mut c: Counter) -> i32 {
    c.value += 100;
    c.history[0] = 999;
    c.value
}

fn bump_and_return(mut c: Counter) -> Counter {
    c.value += 1;
    c.history[c.value as usize % 3] = c.value;
    c
}

fn main() {
    let a = Counter { value: 1, history: [0, 0, 0] };
    let mut b = a;
    b.value = 2;
    b.history[1] = 5;
    println!("a = {} [{} {} {}]", a.value, a.history[0], a.history[1], a.history[2]);
    println!("b = {} [{} {} {}]", b.value, b.history[0], b.history[1], b.history[2]);

    // Passing by value: the callee's changes stay in the callee.
    println!("bump(b) = {}", bump(b));
    println!("b after bump = {} [{}]", b.value, b.history[0]);

    // Returning the modified copy is how a function "updates" a struct.
    let mut c = a;
    for _k in 0..4 {
        c = bump_and_return(c);
    }
    println!("c = {} [{} {} {}]", c.value, c.history[0], c.history[1], c.history[2]);
    println!("a unchanged = {}", a.value);

    // Copies of nested structs are deep.
    let o = Outer { inner: a, tag: 7 };
    let mut o2 = o;
    o2.inner.value = -5;
    o2.inner.history[2] = 42;
    o2.tag = 8;
    println!("o = {} {} {}", o.inner.value, o.inner.history[2], o.tag);
    println!("o2 = {} {} {}", o2.inner.value, o2.inner.history[2], o2.tag);

    // Copying a field out of a struct.
    let mut inner = o2.inner;
    inner.value = 1000;
    println!("inner = {}, o2.inner = {}", inner.value, o2.inner.value);

    // Arrays of structs copy their elements too.
    let arr = [a, b, c];
    let mut arr2 = arr;
    arr2[0].value = 77;
    let mut elem = arr[1];
    elem.value = 88;
    println!("arr[0] = {}, arr2[0] = {}, arr[1] = {}, elem = {}", arr[0].value, arr2[0].value, arr[1].value, elem.value);

    // The same value can be used after being passed, assigned and returned.
    let d = bump_and_return(a);
    let e = d;
    println!("d = {}, e = {}, bump(d) = {}, d again = {}", d.value, e.value, bump(d), d.value);

    // Overwriting a whole struct field with a copy of another local.
    let mut x = Outer { inner: a, tag: 0 };
    let y = Counter { value: 50, history: [1, 2, 3] };
    x.inner = y;
    x.inner.history[0] = 10;
    println!("x.inner.history[0] = {}, y.history[0] = {}", x.inner.history[0], y.history[0]);
}

// `mut _` is not a pattern: `mut` needs a name to bind, in `for` as in `let`.

fn main() {
    let mut n = 0;
    for mut _ in 0..3 { //~ ERROR `mut` must be followed by a named binding
        n += 1;
    }
    println!("{}", n);
}

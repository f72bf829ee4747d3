// `_` in a `for` head binds nothing: the body cannot read it.

fn main() {
    let mut s = 0;
    for _ in 0..3 {
        s += _; //~ ERROR in expressions, `_` can only be used on the left-hand side of an assignment
    }
    println!("{}", s);
}

// `mut _` is not a pattern: `mut` needs a name to bind.

fn main() {
    let mut _ = 5; //~ ERROR `mut` must be followed by a named binding
    println!("done");
}

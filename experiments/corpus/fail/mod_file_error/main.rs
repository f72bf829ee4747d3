// Errors are reported in the module file where they occur.

mod util;

fn main() {
    println!("{}", util::inner::f());
}

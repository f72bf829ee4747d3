fn main() {
    println!("{}", nowhere::f()); //~ ERROR cannot find module or crate `nowhere` in this scope
}

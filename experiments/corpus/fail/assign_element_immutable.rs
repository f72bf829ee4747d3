fn main() {
    let a = [1, 2, 3];
    a[0] = 10; //~ ERROR cannot assign to `a[_]`, as `a` is not declared as mutable
    println!("{}", a[0]);
}

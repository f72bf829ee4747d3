fn main() {
    let a = [1, 2, 3];
    let i: i32 = 1;
    println!("{}", a[i]); //~ ERROR the type `[{integer}]` cannot be indexed by `i32`
}

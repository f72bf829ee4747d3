fn f() -> [i32; N] { //~ ERROR cycle detected when
    [0; N]
}
const N: usize = {
    f();
    1
};

fn main() {
    println!("{}", N);
}

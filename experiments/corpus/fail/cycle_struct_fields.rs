#[derive(Clone, Copy)]
struct S { a: [i32; N] } //~ ERROR cycle detected when
const N: usize = {
    let s = S { a: [0; 1] };
    s.a[0] as usize
};

fn main() {
    println!("{}", N);
}

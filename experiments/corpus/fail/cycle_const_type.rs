const A: [i32; B] = [0; 2]; //~ ERROR cycle detected when
const B: usize = A[0] as usize;

fn main() {
    println!("{}", B);
}

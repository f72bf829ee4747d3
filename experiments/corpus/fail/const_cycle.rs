const A: i32 = B + 1; //~ ERROR cycle detected when simplifying constant for the type system `A`
const B: i32 = A * 2;

fn main() {
    println!("{}", A);
}

const A: usize = { let x: [i32; A] = [0; 1]; 1 / 0 }; //~ ERROR cycle detected when
const X: i32 = 1 / 0; //~ ERROR attempt to divide `1_i32` by zero

fn main() {}

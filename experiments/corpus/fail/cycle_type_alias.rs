type T = [i32; N]; const N: usize = { let x: T = [0; 1]; x[0] as usize + 1 }; //~ ERROR cycle detected when

fn main() {
    println!("{}", N);
}

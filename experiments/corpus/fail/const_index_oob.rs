const TABLE: [i32; 3] = [1, 2, 3];
const FOURTH: i32 = TABLE[3]; //~ ERROR index out of bounds: the length is 3 but the index is 3

fn main() {
    println!("{}", FOURTH);
}

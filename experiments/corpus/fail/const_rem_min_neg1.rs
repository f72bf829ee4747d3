const R: i64 = i64::MIN % -1; //~ ERROR attempt to compute `i64::MIN % -1_i64`, which would overflow

fn main() {
    println!("{}", R);
}

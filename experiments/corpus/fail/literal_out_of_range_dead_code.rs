// An out-of-range literal is an error even where it is never evaluated.

fn main() {
    if false {
        let big: i64 = 9223372036854775808; //~ ERROR literal out of range for `i64`
        println!("{}", big);
    }
}

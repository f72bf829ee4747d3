// `for` is not allowed in a constant.

const SUM: i32 = {
    let mut s = 0;
    for i in 0..4 { //~ ERROR cannot use `for` loop on `std::ops::Range<i32>` in constants
        s += i;
    }
    s
};

fn main() {
    println!("{}", SUM);
}

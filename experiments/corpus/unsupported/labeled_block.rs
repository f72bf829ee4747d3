// rustc: accepts
fn main() {
    let x = 'b: { //~ ERROR unsupported
        if true {
            break 'b 1;
        }
        2
    };
    println!("{}", x);
}

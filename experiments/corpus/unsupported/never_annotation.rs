// rustc: rejects
fn main() {
    let x: ! = loop {}; //~ ERROR unsupported
}

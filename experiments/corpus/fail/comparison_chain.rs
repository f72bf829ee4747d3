fn main() {
    let a = 1;
    let b = 2;
    let c = 3;
    if a < b < c { //~ ERROR comparison operators cannot be chained
        println!("ordered");
    }
}

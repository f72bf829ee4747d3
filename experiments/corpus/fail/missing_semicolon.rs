fn main() {
    let a = 1 //~ ERROR expected `;`, found keyword `let`
    let b = 2;
    println!("{} {}", a, b);
}

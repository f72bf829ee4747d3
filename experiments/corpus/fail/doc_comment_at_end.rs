fn main() {
    println!("{}", 1);
    /// A doc comment that documents nothing.
} //~^ ERROR found a documentation comment that doesn't document anything

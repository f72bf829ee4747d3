fn main() {
    let x = 1;
    //! This inner doc comment is not at the start of a module.
    //~^ ERROR expected outer doc comment
    println!("{}", x);
}

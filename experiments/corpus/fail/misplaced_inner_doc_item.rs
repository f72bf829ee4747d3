fn f() -> i32 {
    1
}

/*! An inner block doc comment after an item. */ //~ ERROR expected outer doc comment

fn main() {
    println!("{}", f());
}

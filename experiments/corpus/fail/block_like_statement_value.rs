// An `if` statement without `;` that is not the block's tail must have type ().

fn main() {
    let c = true;
    if c { 1 } else { 2 } //~ ERROR mismatched types
    //~^ ERROR mismatched types
    println!("done");
}

// A statement that starts with a block ends at its `}`: `{1} + 1` is not a sum.

fn main() {
    let _ = 0;
    {1} + 1; //~ ERROR leading `+` is not supported
    //~^ ERROR mismatched types
}

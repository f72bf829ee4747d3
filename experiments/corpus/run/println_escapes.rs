// Escape sequences and non-ASCII text inside println!'s format string.

fn main() {
    println!("quote: \" backslash: \\ tab:\tend");
    println!("newline inside:\nsecond line {}", 2);
    println!("apostrophe: ' and \' and unicode: \u{48}\u{49}");
    println!("non-ASCII: héllo wörld ✓ {} ∑", 3);
    println!("hex escapes: [\x41\x42]");
    println!("a long line \
              continued after a backslash-newline: {}", 4);
}

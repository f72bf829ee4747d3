// println!: plain text, `{}` holes for integers and bools, `{{` and `}}` escapes, a
// trailing comma, and the empty `println!()`.

fn main() {
    println!("plain text");
    println!();
    println!("bool: {} {}", true, false);
    println!("negative: {} {} {}", -1, -2147483648i32, i64::MIN);
    println!("u64 max: {}", u64::MAX);
    println!("usize max: {}", usize::MAX);
    println!("zero: {} {} {} {}", 0i32, 0i64, 0u64, 0usize);
    println!("braces: {{}} {{ {} }}", 5);
    println!("{{{}}}", 42);
    println!("{{");
    println!("}}");
    println!("}}{{");
    println!("adjacent holes: {}{}{}", 1, 2, 3);
    println!("{}", 7);
    println!("{} at the start", 1);
    println!("trailing comma: {}", 9,);
    println!("two with trailing comma: {} {}", 10, 20,);
    println!("twelve: {} {} {} {} {} {} {} {} {} {} {} {}", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12);
    println!();
    println!("{}", 1 + 2 * 3);
    println!("{}", if 3 > 2 { 100 } else { 200 });
    println!("{}", { let x = 5; x * x });
    println!("{}", 3 > 2 && 2 > 1);
    println!("{}", -(-5));
    println!("{}", !0u64 >> 60);
    println!("expression args: {} {}", [1, 2, 3][1], (7 as u64) << 60);
    println!("   leading and trailing spaces   ");
    println!("symbols: ! @ # $ % ^ & * ( ) - + = [ ] ; : , . < > / ? ~ `");
}

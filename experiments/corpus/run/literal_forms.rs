// The spelling of integer literals: decimal with leading zeros, underscores, hex, suffixes,
// and the minimum values written with a unary minus.

const HEX: u64 = 0xDEAD_BEEF;
const MASK: i64 = 0x7FFF_FFFF_FFFF_FFFF;

fn main() {
    println!("010 = {}", 010);
    println!("007 + 0010 = {}", 007 + 0010);
    println!("1_000_000 = {}", 1_000_000);
    println!("1_0 = {}", 1_0);
    println!("0x10 = {}", 0x10);
    println!("0xff = {}, 0xFF = {}", 0xff, 0xFF);
    println!("0x_ff = {}", 0x_ff);
    println!("0x7fff_ffff = {}", 0x7fff_ffff);
    println!("HEX = {}, MASK = {}", HEX, MASK);

    println!("5i64 = {}", 5i64);
    println!("1_000u64 = {}", 1_000u64);
    println!("0xffusize = {}", 0xffusize);
    println!("1_000_000_i64 = {}", 1_000_000_i64);
    println!("7i32 = {}", 7i32);
    println!("0xFFFF_FFFF_FFFF_FFFFu64 = {}", 0xFFFF_FFFF_FFFF_FFFFu64);
    println!("0x8000_0000_0000_0000u64 = {}", 0x8000_0000_0000_0000u64);
    println!("0xFFFF_FFFF_FFFF_FFFFusize = {}", 0xFFFF_FFFF_FFFF_FFFFusize);

    // One past the maximum is allowed directly under a unary minus.
    println!("-2147483648i32 = {}", -2147483648i32);
    println!("-2147483648 = {}", -2147483648);
    println!("-(2147483648) = {}", -(2147483648));
    println!("-9223372036854775808i64 = {}", -9223372036854775808i64);
    let m: i64 = -9223372036854775808;
    println!("m = {}", m);
    println!("-0x8000_0000 = {}", -0x8000_0000);

    // Suffixed literals fix the type of an operation.
    println!("4000000000u64 * 4 = {}", 4000000000u64 * 4);
    println!("2147483647 + 1i32 = {}", 2147483647 + 1i32);
    println!("1i64 << 40 = {}", 1i64 << 40);
    println!("0u64 - 1 = {}", 0u64 - 1);
    println!("0usize - 1 = {}", 0usize - 1);

    // Literals next to operators without spaces.
    let x = 3;
    println!("x-1 = {}, x+-1 = {}, x- -1 = {}", x-1, x+-1, x- -1);
    println!("--5 = {}", --5);
    println!("-(-5) = {}", -(-5));
    println!("!-1 = {}", !-1);
}

// A fixed-point (16.16) Mandelbrot set: each row of a 40x20 grid is printed as the number
// of points that stay bounded, followed by a bitmask of the left half.

const FRAC: i64 = 16;
const ONE: i64 = 1 << FRAC;
const W: i64 = 40;
const H: i64 = 20;
const MAX_ITER: i32 = 60;

fn iterations(cr: i64, ci: i64) -> i32 {
    let mut zr: i64 = 0;
    let mut zi: i64 = 0;
    let mut n = 0;
    while n < MAX_ITER {
        let zr2 = zr * zr >> FRAC;
        let zi2 = zi * zi >> FRAC;
        if zr2 + zi2 > 4 * ONE {
            break;
        }
        let t = zr2 - zi2 + cr;
        zi = (2 * zr * zi >> FRAC) + ci;
        zr = t;
        n += 1;
    }
    n
}

fn main() {
    let mut total_inside = 0;
    let mut total_iters: i64 = 0;
    for y in 0..H {
        let ci = (y * 2 * ONE) / H - ONE + ONE / (2 * H);
        let mut inside = 0;
        let mut mask: u64 = 0;
        for x in 0..W {
            let cr = (x * 3 * ONE) / W - 2 * ONE;
            let n = iterations(cr, ci);
            total_iters += n as i64;
            if n == MAX_ITER {
                inside += 1;
                if x < W / 2 {
                    mask |= 1 << x;
                }
            }
        }
        total_inside += inside;
        println!("row {}: {} inside, mask {}", y, inside, mask);
    }
    println!("total inside: {}, total iterations: {}", total_inside, total_iters);
}

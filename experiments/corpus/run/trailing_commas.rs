// Trailing commas wherever a comma-separated list allows one.

use parts::{
    make,
    Part,
};

mod parts {
    #[derive(Clone, Copy)]
    pub struct Part {
        pub a: i32,
        pub b: i32,
    }

    pub fn make(a: i32, b: i32,) -> Part {
        Part { a, b, }
    }
}

fn sum3(
    x: i64,
    y: i64,
    z: i64,
) -> i64 {
    x + y + z
}

fn main() {
    let p = make(1, 2,);
    let q = Part { a: 3, b: 4, };
    let arr = [p.a, p.b, q.a, q.b,];
    let nested = [[1, 2,], [3, 4,],];
    println!(
        "{} {} {} {}",
        arr[0],
        arr[3],
        nested[1][0],
        sum3(10, 20, 30,),
    );
}

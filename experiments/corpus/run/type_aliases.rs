// Type aliases of integer types, bool and arrays, including `Alias::MAX` and `Alias::MIN`.

type Int = i32;
type Long = i64;
type Count = usize;
type Hash = u64;
type Flag = bool;
type Row = [Int; 3];
type Matrix = [Row; 3];
type Index = Count;
type Id = Long;

const LIMIT: Long = Long::MAX;
const HASH_MAX: Hash = Hash::MAX;

fn identity() -> Matrix {
    let mut m: Matrix = [[0; 3]; 3];
    let mut i: Index = 0;
    while i < 3 {
        m[i][i] = 1;
        i += 1;
    }
    m
}

fn is_positive(x: Int) -> Flag {
    x > 0
}

fn fnv1a(data: Row) -> Hash {
    let mut h: Hash = 14695981039346656037;
    for i in 0..3 {
        h ^= data[i] as Hash;
        h *= 1099511628211;
    }
    h
}

fn main() {
    println!("Int::MAX = {}, Int::MIN = {}", Int::MAX, Int::MIN);
    println!("Long::MIN = {}, LIMIT = {}", Long::MIN, LIMIT);
    println!("Count::MAX = {}, Index::MIN = {}", Count::MAX, Index::MIN);
    println!("HASH_MAX = {}, Id::MAX = {}", HASH_MAX, Id::MAX);

    let m = identity();
    println!("identity = {} {} {} / {} {} {}", m[0][0], m[0][1], m[0][2], m[1][0], m[1][1], m[2][2]);
    println!("is_positive: {} {}", is_positive(5), is_positive(-5));
    println!("fnv1a = {}", fnv1a([1, 2, 3]));

    // Values of an alias and of the aliased type mix freely.
    let a: Int = 40;
    let b: i32 = 2;
    let c: Int = a + b;
    println!("c = {}", c);
    let big: Long = Int::MAX as Long + 1;
    println!("big = {}", big);
    let wrap: Int = Int::MAX + 1;
    println!("wrap = {}", wrap);
    let r: Row = [Int::MIN, 0, Int::MAX];
    println!("r = {} {} {}", r[0], r[1], r[2]);
    let f: Flag = r[0] < r[2];
    println!("f = {}", f);
}

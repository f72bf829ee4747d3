pub fn f() -> i32 {
    2
}

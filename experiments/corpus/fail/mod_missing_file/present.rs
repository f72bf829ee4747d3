pub fn f() -> i32 {
    1
}

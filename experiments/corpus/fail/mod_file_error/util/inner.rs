pub fn f() -> i32 {
    super::private_helper() + helper_in_parent() //~ ERROR cannot find function `helper_in_parent` in this scope
}

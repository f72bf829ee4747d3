pub mod inner;

fn private_helper() -> i32 {
    1
}

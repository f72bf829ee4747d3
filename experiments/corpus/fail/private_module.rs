mod outer {
    mod inner {
        pub fn f() -> i32 {
            1
        }
    }

    pub fn g() -> i32 {
        inner::f()
    }
}

fn main() {
    println!("{}", outer::g());
    println!("{}", outer::inner::f()); //~ ERROR module `inner` is private
}

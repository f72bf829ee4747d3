mod m {
    fn secret() -> i32 {
        42
    }

    pub fn public() -> i32 {
        secret()
    }
}

fn main() {
    println!("{}", m::public());
    println!("{}", m::secret()); //~ ERROR function `secret` is private
}

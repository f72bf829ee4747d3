// A public function whose signature names a private type cannot be called from where the
// type is not visible.

mod m {
    #[derive(Clone, Copy)]
    struct Secret {
        v: i32,
    }

    pub fn secret(v: i32) -> Secret {
        Secret { v }
    }

    pub fn reveal(s: Secret) -> i32 {
        s.v
    }

    pub fn roundtrip(v: i32) -> i32 {
        reveal(secret(v))
    }
}

fn main() {
    println!("{}", m::roundtrip(1));
    let _ = m::secret(2); //~ ERROR type `Secret` is private
}

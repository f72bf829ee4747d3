mod m {
    fn secret() -> i32 {
        1
    }

    pub fn public() -> i32 {
        secret()
    }
}

use m::secret; //~ ERROR function `secret` is private

fn main() {
    println!("{} {}", secret(), m::public());
}

// Every constant in every module is evaluated, used or not.

mod deep {
    pub mod deeper {
        const UNUSED: u64 = 0 - 1; //~ ERROR attempt to compute `0_u64 - 1_u64`, which would overflow
    }
}

fn main() {
    println!("{}", 1);
}

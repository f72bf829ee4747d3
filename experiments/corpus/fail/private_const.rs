mod config {
    const LIMIT: u64 = 10;

    pub fn limit() -> u64 {
        LIMIT
    }
}

fn main() {
    println!("{}", config::limit() + config::LIMIT); //~ ERROR constant `LIMIT` is private
}

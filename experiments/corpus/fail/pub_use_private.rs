mod m {
    fn hidden() -> i32 {
        1
    }

    pub use self::hidden as exposed; //~ ERROR `hidden` is private, and cannot be re-exported
}

fn main() {
    println!("{}", m::exposed()); //~ ERROR function import `exposed` is private
}

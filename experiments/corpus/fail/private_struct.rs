mod shapes {
    #[derive(Clone, Copy)]
    struct Square {
        pub side: i32,
    }

    pub fn unit_side() -> i32 {
        Square { side: 1 }.side
    }
}

fn main() {
    let s = shapes::Square { side: 2 }; //~ ERROR struct `Square` is private
    println!("{} {}", s.side, shapes::unit_side());
}

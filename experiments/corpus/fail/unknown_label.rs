fn main() {
    'outer: for i in 0..3 {
        for j in 0..3 {
            if i == j {
                continue 'outr; //~ ERROR use of undeclared label `'outr`
            }
        }
    }
}

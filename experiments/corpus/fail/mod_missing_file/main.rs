mod present;
mod absent; //~ ERROR file not found for module `absent`

fn main() {
    println!("{}", present::f());
}

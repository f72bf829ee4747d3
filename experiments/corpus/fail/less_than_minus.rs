// `<-` is a single token, so `a<-1` does not parse as `a < -1`.

fn main() {
    let a = 0;
    if a<-1 { //~ ERROR unexpected token: `<-`
        println!("negative");
    }
}

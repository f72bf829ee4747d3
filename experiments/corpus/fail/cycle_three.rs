// Three cycles through three kinds of steps. rustc reports the first and the last; rill
// also reports the one through the type alias (which rustc reports when it is alone).
#[derive(Clone, Copy)]
struct P { q: [Q; N] } //~ ERROR cycle detected when
#[derive(Clone, Copy)]
struct Q { v: i32 }
const N: usize = { let p: P = P { q: [] }; 2 };
type Al = [i32; M];
const M: usize = { let a: Al = [0; 0]; 1 };
fn h() -> [i32; K] { [1; K] } //~ ERROR cycle detected when
const K: usize = { let z = h(); 3 };

fn main() {}

// Type aliases of structs: literals, fields, parameters and return types through aliases.

#[derive(Clone, Copy)]
struct Vec2 {
    x: i32,
    y: i32,
}

type V = Vec2;
type Position = V;
type Velocity = Vec2;
type Path = [Position; 4];

#[derive(Clone, Copy)]
struct Body {
    pos: Position,
    vel: Velocity,
}

type Particle = Body;

fn add(a: V, b: Velocity) -> Position {
    Position { x: a.x + b.x, y: a.y + b.y }
}

fn step(p: Particle) -> Particle {
    Particle { pos: add(p.pos, p.vel), vel: p.vel }
}

fn trace(start: Body, steps: usize) -> Path {
    let mut path: Path = [V { x: 0, y: 0 }; 4];
    let mut b = start;
    let mut i = 0;
    while i < steps && i < 4 {
        path[i] = b.pos;
        b = step(b);
        i += 1;
    }
    path
}

fn main() {
    let p: Particle = Body { pos: V { x: 0, y: 0 }, vel: Velocity { x: 2, y: -1 } };
    let q = step(step(p));
    println!("q.pos = ({}, {})", q.pos.x, q.pos.y);

    let path = trace(p, 4);
    for i in 0..4 {
        println!("path[{}] = ({}, {})", i, path[i].x, path[i].y);
    }

    // Shorthand literal through an alias.
    let x = 5;
    let y = 6;
    let v = Position { x, y };
    let w: Vec2 = v;
    println!("w = ({}, {})", w.x, w.y);

    // Mutation through an aliased type.
    let mut b: Particle = p;
    b.vel.y = 10;
    b = step(b);
    println!("b.pos = ({}, {}), p.vel.y = {}", b.pos.x, b.pos.y, p.vel.y);
}

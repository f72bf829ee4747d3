//! Evaluates constant initializers exactly as rustc's const evaluator does: overflow,
//! division by zero, out-of-range shifts and out-of-bounds indexing are errors (not
//! wrapping), `as` truncates. The generator uses it to keep every `const` valid and to
//! re-check dependent constants after an edit.

use super::model::*;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Val {
    Int(i128, IntTy),
    Bool(bool),
    Unit,
    Array(Vec<Val>),
    Struct(Vec<(FieldId, Val)>),
}

impl Val {
    pub(crate) fn as_u64(&self) -> u64 {
        match self {
            Val::Int(v, _) => *v as u64,
            other => panic!("not an integer: {other:?}"),
        }
    }

    pub(crate) fn as_int(&self) -> Option<(i128, IntTy)> {
        match self {
            Val::Int(v, t) => Some((*v, *t)),
            _ => None,
        }
    }
}

/// Why evaluation stopped: a compile error, or control flow on its way to a loop.
enum Stop {
    Error(&'static str),
    Break(Option<Label>, Val),
    Continue(Option<Label>),
}

type Res<T> = Result<T, Stop>;

/// Evaluates `e` in a const context. Every `Expr::Const` it reads must already hold its
/// value in the model.
pub(crate) fn eval_const(m: &Model, e: &Expr) -> Result<Val, &'static str> {
    let mut ev = Eval {
        m,
        env: Vec::new(),
        steps: 0,
    };
    match ev.expr(e) {
        Ok(v) => Ok(v),
        Err(Stop::Error(msg)) => Err(msg),
        Err(_) => Err("break or continue outside of a loop"),
    }
}

/// Re-evaluates every live constant in id order (constants only read constants with
/// smaller ids), storing the values. Fails if any constant no longer evaluates.
pub(crate) fn reevaluate_all(m: &mut Model) -> Result<(), &'static str> {
    for i in 0..m.consts.len() {
        if m.consts[i].removed {
            continue;
        }
        let v = eval_const(m, &m.consts[i].init)?;
        if m.consts[i].value != v {
            std::sync::Arc::make_mut(&mut m.consts[i]).value = v;
        }
    }
    Ok(())
}

/// Evaluation steps after which a const is considered too expensive (rustc's lint fires at
/// about two million; the generator stays far below).
const STEP_LIMIT: u64 = 100_000;

struct Eval<'m> {
    m: &'m Model,
    env: Vec<(Local, Val)>,
    steps: u64,
}

impl Eval<'_> {
    fn tick(&mut self) -> Res<()> {
        self.steps += 1;
        if self.steps > STEP_LIMIT {
            return Err(Stop::Error("const evaluation takes too long"));
        }
        Ok(())
    }

    fn expr(&mut self, e: &Expr) -> Res<Val> {
        self.tick()?;
        Ok(match e {
            Expr::Int(l) => {
                if !l.ty.contains(l.value as i128) {
                    return Err(Stop::Error("literal out of range"));
                }
                Val::Int(l.value as i128, l.ty)
            }
            Expr::Bool(b) => Val::Bool(*b),
            Expr::Local(l) => match self.env.iter().rev().find(|(n, _)| n == l) {
                Some((_, v)) => v.clone(),
                None => return Err(Stop::Error("unknown local")),
            },
            Expr::Const(c, _) => self.m.konst(*c).value.clone(),
            Expr::Assoc { ty, max } => {
                let t = self.m.cast_ty(*ty);
                Val::Int(if *max { t.max() } else { t.min() }, t)
            }
            Expr::Unary(op, inner) => {
                // `-2147483648i32`: the literal one past the maximum is allowed here.
                if let (UnOp::Neg, Expr::Int(l)) = (op, &**inner) {
                    if l.ty.signed() && l.value as i128 == l.ty.max() + 1 {
                        return Ok(Val::Int(l.ty.min(), l.ty));
                    }
                }
                let v = self.expr(inner)?;
                match (op, v) {
                    (UnOp::Not, Val::Bool(b)) => Val::Bool(!b),
                    (UnOp::Not, Val::Int(x, t)) => Val::Int(t.wrap(!x), t),
                    (UnOp::Neg, Val::Int(x, t)) if t.signed() => {
                        if x == t.min() {
                            return Err(Stop::Error("negation overflows"));
                        }
                        Val::Int(-x, t)
                    }
                    _ => return Err(Stop::Error("bad unary operand")),
                }
            }
            Expr::Binary(op, a, b) => self.binary(*op, a, b)?,
            Expr::Cast(inner, ty) => {
                let t = self.m.cast_ty(*ty);
                match self.expr(inner)? {
                    Val::Int(x, _) => Val::Int(t.wrap(x), t),
                    Val::Bool(b) => Val::Int(b as i128, t),
                    _ => return Err(Stop::Error("bad cast operand")),
                }
            }
            Expr::Call(_) => return Err(Stop::Error("call in a const")),
            Expr::StructLit(s) => {
                let mut fields = Vec::with_capacity(s.fields.len());
                for fi in &s.fields {
                    fields.push((fi.field, self.expr(&fi.value)?));
                }
                Val::Struct(fields)
            }
            Expr::Field(base, _, f) => match self.expr(base)? {
                Val::Struct(fields) => match fields.into_iter().find(|(id, _)| id == f) {
                    Some((_, v)) => v,
                    None => return Err(Stop::Error("no such field")),
                },
                _ => return Err(Stop::Error("field of a non-struct")),
            },
            Expr::Array(es) => {
                let mut vs = Vec::with_capacity(es.len());
                for e in es {
                    vs.push(self.expr(e)?);
                }
                Val::Array(vs)
            }
            Expr::Repeat(e, len) => {
                let v = self.expr(e)?;
                let n = self.m.len_value(len);
                self.steps += n;
                Val::Array(vec![v; n as usize])
            }
            Expr::Index(base, idx) => {
                // rustc evaluates the index first, then the base (LANGUAGE.md, "Evaluation
                // order").
                let i = self.expr(idx)?;
                let b = self.expr(base)?;
                index(b, &i)?
            }
            Expr::Paren(e) => self.expr(e)?,
            Expr::Block(b) => self.block(b)?,
            Expr::If(i) => self.if_(i)?,
            Expr::Loop(label, body) => loop {
                self.tick()?;
                match self.block(body) {
                    Ok(_) => {}
                    Err(Stop::Break(l, v)) if l.is_none() || l == *label => break v,
                    Err(Stop::Continue(l)) if l.is_none() || l == *label => {}
                    Err(other) => return Err(other),
                }
            },
            Expr::While(label, cond, body) => loop {
                self.tick()?;
                match self.expr(cond)? {
                    Val::Bool(true) => {}
                    Val::Bool(false) => break Val::Unit,
                    _ => return Err(Stop::Error("non-bool condition")),
                }
                match self.block(body) {
                    Ok(_) => {}
                    Err(Stop::Break(l, _)) if l.is_none() || l == *label => break Val::Unit,
                    Err(Stop::Continue(l)) if l.is_none() || l == *label => {}
                    Err(other) => return Err(other),
                }
            },
            Expr::For(_) => return Err(Stop::Error("`for` in a const")),
            Expr::Break(l, v) => {
                let v = match v {
                    Some(v) => self.expr(v)?,
                    None => Val::Unit,
                };
                return Err(Stop::Break(*l, v));
            }
            Expr::Continue(l) => return Err(Stop::Continue(*l)),
            Expr::Return(_) => return Err(Stop::Error("`return` in a const")),
        })
    }

    fn if_(&mut self, i: &If) -> Res<Val> {
        match self.expr(&i.cond)? {
            Val::Bool(true) => self.block(&i.then),
            Val::Bool(false) => match &i.els {
                Some(Else::Block(b)) => self.block(b),
                Some(Else::If(i)) => self.if_(i),
                None => Ok(Val::Unit),
            },
            _ => Err(Stop::Error("non-bool condition")),
        }
    }

    fn block(&mut self, b: &Block) -> Res<Val> {
        let mark = self.env.len();
        let r = self.block_inner(b);
        self.env.truncate(mark);
        r
    }

    fn block_inner(&mut self, b: &Block) -> Res<Val> {
        for s in &b.stmts {
            self.tick()?;
            match s {
                Stmt::Let { name, init, .. } => {
                    let v = self.expr(init)?;
                    self.env.push((*name, v));
                }
                Stmt::LetWild(e) | Stmt::Expr(e) => {
                    self.expr(e)?;
                }
                Stmt::Assign { place, op, value } => {
                    let v = self.expr(value)?;
                    let mut path = Vec::new();
                    let root = self.place_path(place, &mut path)?;
                    let slot = self.env.iter().rposition(|(n, _)| *n == root);
                    let Some(slot) = slot else {
                        return Err(Stop::Error("unknown local"));
                    };
                    let mut target = std::mem::replace(&mut self.env[slot].1, Val::Unit);
                    let r = assign(&mut target, &path, *op, v);
                    self.env[slot].1 = target;
                    r?;
                }
                Stmt::Print(_) | Stmt::Raw(_) => return Err(Stop::Error("not allowed in a const")),
                Stmt::Comment(_) | Stmt::Blank => {}
            }
        }
        match &b.tail {
            Some(t) => self.expr(t),
            None => Ok(Val::Unit),
        }
    }

    /// Evaluates the index expressions of a place (left to right) into a path of steps.
    fn place_path(&mut self, p: &Place, path: &mut Vec<Step>) -> Res<Local> {
        match p {
            Place::Local(l) => Ok(*l),
            Place::Field(inner, _, f) => {
                let root = self.place_path(inner, path)?;
                path.push(Step::Field(*f));
                Ok(root)
            }
            Place::Index(inner, idx) => {
                let root = self.place_path(inner, path)?;
                let i = self.expr(idx)?;
                path.push(Step::Index(i.as_u64()));
                Ok(root)
            }
        }
    }

    fn binary(&mut self, op: BinOp, a: &Expr, b: &Expr) -> Res<Val> {
        let va = self.expr(a)?;
        match (op, &va) {
            (BinOp::And, Val::Bool(false)) => return Ok(Val::Bool(false)),
            (BinOp::Or, Val::Bool(true)) => return Ok(Val::Bool(true)),
            _ => {}
        }
        let vb = self.expr(b)?;
        arith(op, va, vb).map_err(Stop::Error)
    }
}

enum Step {
    Field(FieldId),
    Index(u64),
}

fn index(base: Val, i: &Val) -> Res<Val> {
    match base {
        Val::Array(mut vs) => {
            let i = i.as_u64() as usize;
            if i >= vs.len() {
                return Err(Stop::Error("index out of bounds"));
            }
            Ok(vs.swap_remove(i))
        }
        _ => Err(Stop::Error("index of a non-array")),
    }
}

fn assign(target: &mut Val, path: &[Step], op: Option<BinOp>, v: Val) -> Res<()> {
    let mut cur = target;
    for step in path {
        cur = match (step, cur) {
            (Step::Field(f), Val::Struct(fields)) => {
                match fields.iter_mut().find(|(id, _)| id == f) {
                    Some((_, v)) => v,
                    None => return Err(Stop::Error("no such field")),
                }
            }
            (Step::Index(i), Val::Array(vs)) => match vs.get_mut(*i as usize) {
                Some(v) => v,
                None => return Err(Stop::Error("index out of bounds")),
            },
            _ => return Err(Stop::Error("bad place")),
        };
    }
    *cur = match op {
        None => v,
        Some(op) => arith(op, cur.clone(), v).map_err(Stop::Error)?,
    };
    Ok(())
}

/// A binary operator on two values with const-eval semantics.
pub(crate) fn arith(op: BinOp, a: Val, b: Val) -> Result<Val, &'static str> {
    use BinOp::*;
    match (a, b) {
        (Val::Bool(x), Val::Bool(y)) => Ok(Val::Bool(match op {
            And => x && y,
            Or => x || y,
            Eq => x == y,
            Ne => x != y,
            Lt => !x & y,
            Gt => x & !y,
            Le => x <= y,
            Ge => x >= y,
            BitAnd => x & y,
            BitOr => x | y,
            BitXor => x ^ y,
            _ => return Err("bad bool operator"),
        })),
        (Val::Int(x, t), Val::Int(y, _)) => {
            let checked = |r: Option<i128>| match r {
                Some(v) if t.contains(v) => Ok(Val::Int(v, t)),
                _ => Err("arithmetic overflow"),
            };
            match op {
                Add => checked(x.checked_add(y)),
                Sub => checked(x.checked_sub(y)),
                Mul => checked(x.checked_mul(y)),
                Div | Rem => {
                    if y == 0 {
                        return Err("division by zero");
                    }
                    if t.signed() && x == t.min() && y == -1 {
                        return Err("division overflow");
                    }
                    Ok(Val::Int(if op == Div { x / y } else { x % y }, t))
                }
                Shl | Shr => {
                    if y < 0 || y >= t.bits() as i128 {
                        return Err("shift overflow");
                    }
                    let v = if op == Shl {
                        t.wrap(((x as u64) << y) as i128)
                    } else {
                        x >> y
                    };
                    Ok(Val::Int(v, t))
                }
                BitAnd => Ok(Val::Int(t.wrap(x & y), t)),
                BitOr => Ok(Val::Int(t.wrap(x | y), t)),
                BitXor => Ok(Val::Int(t.wrap(x ^ y), t)),
                Eq => Ok(Val::Bool(x == y)),
                Ne => Ok(Val::Bool(x != y)),
                Lt => Ok(Val::Bool(x < y)),
                Gt => Ok(Val::Bool(x > y)),
                Le => Ok(Val::Bool(x <= y)),
                Ge => Ok(Val::Bool(x >= y)),
                And | Or => Err("bad int operator"),
            }
        }
        _ => Err("mismatched operands"),
    }
}

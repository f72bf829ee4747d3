//! Lowering tests on hand-built typed bodies: IR snapshots (`check`) and runs of the
//! lowered IR through the reference interpreter (`check_run`).
//!
//! Bodies are built by hand with [`Tb`], a small typed-tree builder, against
//! [`FakeEnv`], a table of signatures, structs and constants.

use std::sync::Arc;

use expect_test::{expect, Expect};
use rustc_hash::FxHashMap;

use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::ir::builder::fn_def_id;
use crate::ir::interp::{self, InterpLimits};
use crate::ir::layout::{layout_of, struct_field_offsets, Layout};
use crate::ir::{IrFunction, IrProgram};
use crate::sema::def::{DefId, DefKind, Namespace, Res, Vis};
use crate::sema::env::{ErrorReported, SemaEnv};
use crate::sema::thir::{CastFrom, Local, LocalId, TExpr, TExprId, TExprKind, TLists, TStmt, Thir};
use crate::sema::ty::{ConstValue, FieldTy, FnSig, IntTy, StructFields, Ty};
use crate::span::Span;
use crate::syntax::ast::{BinOp, FmtPiece, PathRef, UnOp};

use super::super::lower_fn;

const I32: Ty = Ty::Int(IntTy::I32);
const I64: Ty = Ty::Int(IntTy::I64);
const U64: Ty = Ty::Int(IntTy::U64);
const USIZE: Ty = Ty::Int(IntTy::Usize);

fn arr(elem: Ty, n: u64) -> Ty {
    Ty::Array(Arc::new(elem), n)
}

/// Functions, structs and constants by name; def ids are the def-path hashes of
/// `crate::NAME`.
#[derive(Default)]
struct FakeEnv {
    names: FxHashMap<DefId, String>,
    sigs: FxHashMap<DefId, Arc<FnSig>>,
    structs: FxHashMap<DefId, Arc<StructFields>>,
    consts: FxHashMap<DefId, (Ty, Arc<ConstValue>)>,
    /// Bodies, in definition order.
    bodies: Vec<(DefId, Thir)>,
}

impl FakeEnv {
    fn id(&mut self, name: &str) -> DefId {
        let id = fn_def_id(name);
        self.names.insert(id, format!("crate::{name}"));
        id
    }

    fn strukt(&mut self, name: &str, fields: &[(&str, Ty)]) -> DefId {
        let id = self.id(name);
        let fields = fields
            .iter()
            .map(|(n, ty)| FieldTy {
                name: Symbol::intern(n),
                ty: ty.clone(),
                vis: Vis::Public,
            })
            .collect();
        self.structs.insert(id, Arc::new(StructFields { fields }));
        id
    }

    fn konst(&mut self, name: &str, ty: Ty, value: ConstValue) -> DefId {
        let id = self.id(name);
        self.consts.insert(id, (ty, Arc::new(value)));
        id
    }

    /// Declares a function's signature (its body comes with [`FakeEnv::define`]).
    fn declare(&mut self, name: &str, params: &[Ty], ret: Ty) -> DefId {
        let id = self.id(name);
        self.sigs.insert(
            id,
            Arc::new(FnSig {
                params: params.to_vec(),
                ret,
            }),
        );
        id
    }

    fn define(&mut self, def: DefId, tb: Tb, body: TExprId) {
        let ret = self.sigs[&def].ret.clone();
        self.bodies.push((def, tb.finish(body, ret)));
    }

    fn lower(&self, def: DefId) -> IrFunction {
        let (_, thir) = self.bodies.iter().find(|(d, _)| *d == def).unwrap();
        lower_fn(self, def, self.names[&def].clone(), thir)
    }

    fn listing(&self, def: DefId) -> String {
        let f = self.lower(def);
        let names = |d: DefId| self.names.get(&d).cloned();
        f.display_with(&names).to_string()
    }

    fn program(&self) -> IrProgram {
        let functions = self
            .bodies
            .iter()
            .map(|(d, _)| Arc::new(self.lower(*d)))
            .collect();
        IrProgram {
            functions,
            main: fn_def_id("main"),
        }
    }
}

impl SemaEnv for FakeEnv {
    fn resolve_path(&self, _: DefId, path: PathRef<'_>, _: Namespace) -> Result<Res, Diagnostic> {
        Err(Diagnostic::error("unresolved", path.span))
    }
    fn is_accessible(&self, _: Vis, _: DefId) -> bool {
        true
    }
    fn visibility(&self, _: DefId) -> Vis {
        Vis::Public
    }
    fn def_kind(&self, def: DefId) -> DefKind {
        if self.sigs.contains_key(&def) {
            DefKind::Fn
        } else if self.structs.contains_key(&def) {
            DefKind::Struct
        } else {
            DefKind::Const
        }
    }
    fn def_name(&self, def: DefId) -> String {
        self.names.get(&def).cloned().unwrap_or_default()
    }
    fn fn_sig(&self, def: DefId) -> Result<Arc<FnSig>, ErrorReported> {
        self.sigs.get(&def).cloned().ok_or(ErrorReported)
    }
    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        self.structs.get(&def).cloned().ok_or(ErrorReported)
    }
    fn alias_ty(&self, _: DefId) -> Result<Ty, ErrorReported> {
        Err(ErrorReported)
    }
    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.consts
            .get(&def)
            .map(|c| c.0.clone())
            .ok_or(ErrorReported)
    }
    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        self.consts
            .get(&def)
            .map(|c| c.1.clone())
            .ok_or(ErrorReported)
    }
}

/// Builds a typed body by hand.
#[derive(Default)]
struct Tb {
    exprs: Vec<TExpr>,
    lists: TLists,
    locals: Vec<Local>,
    params: Vec<LocalId>,
}

impl Tb {
    fn finish(self, body: TExprId, ret: Ty) -> Thir {
        Thir {
            exprs: self.exprs,
            lists: self.lists,
            locals: self.locals,
            params: self.params,
            body,
            ret,
        }
    }

    fn x(&mut self, kind: TExprKind, ty: Ty) -> TExprId {
        let ty = self.lists.push_ty(ty);
        self.exprs.push(TExpr {
            kind,
            ty,
            span: Span::DUMMY,
        });
        TExprId(self.exprs.len() as u32 - 1)
    }

    fn ty(&self, e: TExprId) -> Ty {
        self.lists.ty(self.exprs[e.0 as usize].ty).clone()
    }

    fn local(&mut self, name: &str, ty: Ty) -> LocalId {
        self.locals.push(Local {
            name: Symbol::intern(name),
            ty,
            mutable: true,
            span: Span::DUMMY,
        });
        LocalId(self.locals.len() as u32 - 1)
    }

    fn param(&mut self, name: &str, ty: Ty) -> LocalId {
        let l = self.local(name, ty);
        self.params.push(l);
        l
    }

    fn get(&mut self, l: LocalId) -> TExprId {
        let ty = self.locals[l.0 as usize].ty.clone();
        self.x(TExprKind::Local(l), ty)
    }

    fn int(&mut self, ty: Ty, v: i128) -> TExprId {
        let Ty::Int(it) = ty else {
            panic!("not an integer type")
        };
        self.x(TExprKind::Int(it.normalize(v as u64).into()), ty)
    }

    fn i32(&mut self, v: i32) -> TExprId {
        self.int(I32, v as i128)
    }

    fn usize(&mut self, v: u64) -> TExprId {
        self.int(USIZE, v as i128)
    }

    fn bool(&mut self, b: bool) -> TExprId {
        self.x(TExprKind::Bool(b), Ty::Bool)
    }

    fn unit(&mut self) -> TExprId {
        self.x(TExprKind::Unit, Ty::Unit)
    }

    fn konst(&mut self, env: &FakeEnv, def: DefId) -> TExprId {
        let ty = env.consts[&def].0.clone();
        let def = self.lists.push_def(def);
        self.x(TExprKind::ConstRef(def), ty)
    }

    fn bin(&mut self, op: BinOp, a: TExprId, b: TExprId) -> TExprId {
        let ty = if op.is_comparison() {
            Ty::Bool
        } else {
            self.ty(a)
        };
        self.x(TExprKind::Binary(op, a, b), ty)
    }

    fn unary(&mut self, op: UnOp, a: TExprId) -> TExprId {
        let ty = self.ty(a);
        self.x(TExprKind::Unary(op, a), ty)
    }

    fn and(&mut self, a: TExprId, b: TExprId) -> TExprId {
        self.x(TExprKind::LogicalAnd(a, b), Ty::Bool)
    }

    fn or(&mut self, a: TExprId, b: TExprId) -> TExprId {
        self.x(TExprKind::LogicalOr(a, b), Ty::Bool)
    }

    fn cast(&mut self, source: TExprId, to: IntTy) -> TExprId {
        let from = CastFrom::of(&self.ty(source)).expect("a scalar source");
        self.x(TExprKind::Cast { source, from, to }, Ty::Int(to))
    }

    fn assign(&mut self, place: TExprId, value: TExprId) -> TExprId {
        self.x(TExprKind::Assign { place, value }, Ty::Unit)
    }

    fn assign_op(&mut self, op: BinOp, place: TExprId, value: TExprId) -> TExprId {
        self.x(TExprKind::AssignOp { op, place, value }, Ty::Unit)
    }

    fn field(&mut self, env: &FakeEnv, base: TExprId, name: &str) -> TExprId {
        let Ty::Struct(def) = self.ty(base) else {
            panic!("not a struct")
        };
        let fields = &env.structs[&def];
        let index = fields.index_of(Symbol::intern(name)).unwrap();
        let ty = fields.fields[index].ty.clone();
        self.x(
            TExprKind::Field {
                base,
                index: index as u32,
            },
            ty,
        )
    }

    fn index(&mut self, base: TExprId, index: TExprId) -> TExprId {
        let Ty::Array(elem, _) = self.ty(base) else {
            panic!("not an array")
        };
        self.x(TExprKind::Index { base, index }, Ty::clone(&elem))
    }

    fn call(&mut self, env: &FakeEnv, callee: DefId, args: Vec<TExprId>) -> TExprId {
        let ty = env.sigs[&callee].ret.clone();
        let args = self.lists.push_exprs(&args);
        let callee = self.lists.push_def(callee);
        self.x(TExprKind::Call { callee, args }, ty)
    }

    /// A struct literal with fields in the order given.
    fn lit(&mut self, env: &FakeEnv, def: DefId, fields: &[(&str, TExprId)]) -> TExprId {
        let decl = &env.structs[&def];
        let fields: Vec<(u32, TExprId)> = fields
            .iter()
            .map(|(n, e)| (decl.index_of(Symbol::intern(n)).unwrap() as u32, *e))
            .collect();
        let fields = self.lists.push_fields(&fields);
        let idx = self.lists.push_def(def);
        self.x(TExprKind::StructLit { def: idx, fields }, Ty::Struct(def))
    }

    fn array(&mut self, elems: Vec<TExprId>) -> TExprId {
        let ty = arr(self.ty(elems[0]), elems.len() as u64);
        let elems = self.lists.push_exprs(&elems);
        self.x(TExprKind::Array(elems), ty)
    }

    fn repeat(&mut self, value: TExprId, count: u64) -> TExprId {
        let ty = arr(self.ty(value), count);
        self.x(
            TExprKind::Repeat {
                value,
                count: count.into(),
            },
            ty,
        )
    }

    fn block(&mut self, stmts: Vec<TStmt>, tail: Option<TExprId>) -> TExprId {
        let ty = match tail {
            Some(t) => self.ty(t),
            None => Ty::Unit,
        };
        let stmts = self.lists.push_stmts(&stmts);
        self.x(TExprKind::Block { stmts, tail }, ty)
    }

    /// A block of type `!` (its statements diverge).
    fn never_block(&mut self, stmts: Vec<TStmt>) -> TExprId {
        let stmts = self.lists.push_stmts(&stmts);
        self.x(TExprKind::Block { stmts, tail: None }, Ty::Never)
    }

    fn if_(
        &mut self,
        cond: TExprId,
        then_branch: TExprId,
        else_branch: Option<TExprId>,
    ) -> TExprId {
        let ty = match else_branch {
            Some(_) => self.ty(then_branch),
            None => Ty::Unit,
        };
        self.x(
            TExprKind::If {
                cond,
                then_branch,
                else_branch,
            },
            ty,
        )
    }

    /// A `loop` whose body is built by `body` from the loop's id (for `break`s).
    fn loop_(&mut self, ty: Ty, body: impl FnOnce(&mut Tb, TExprId) -> TExprId) -> TExprId {
        let id = self.x(TExprKind::Unit, ty);
        let b = body(self, id);
        self.exprs[id.0 as usize].kind = TExprKind::Loop { body: b };
        id
    }

    fn for_(
        &mut self,
        binding: LocalId,
        start: TExprId,
        end: TExprId,
        inclusive: bool,
        body: impl FnOnce(&mut Tb, TExprId) -> TExprId,
    ) -> TExprId {
        let id = self.x(TExprKind::Unit, Ty::Unit);
        let b = body(self, id);
        self.exprs[id.0 as usize].kind = TExprKind::For {
            binding,
            start,
            end,
            inclusive,
            body: b,
        };
        id
    }

    fn brk(&mut self, target: TExprId, value: Option<TExprId>) -> TExprId {
        self.x(TExprKind::Break { target, value }, Ty::Never)
    }

    fn cont(&mut self, target: TExprId) -> TExprId {
        self.x(TExprKind::Continue { target }, Ty::Never)
    }

    fn ret(&mut self, value: Option<TExprId>) -> TExprId {
        self.x(TExprKind::Return(value), Ty::Never)
    }

    fn never_to(&mut self, e: TExprId, ty: Ty) -> TExprId {
        self.x(TExprKind::NeverToAny(e), ty)
    }

    /// `println!(fmt, args)`; `{}` in `fmt` is a hole.
    fn println(&mut self, fmt: &str, args: Vec<TExprId>) -> TExprId {
        let mut pieces = Vec::new();
        for (i, text) in fmt.split("{}").enumerate() {
            if i > 0 {
                pieces.push(FmtPiece::Hole);
            }
            if !text.is_empty() {
                pieces.push(FmtPiece::Text(text.to_string()));
            }
        }
        let args = self.lists.push_exprs(&args);
        let pieces = self.lists.push_pieces(Arc::from(pieces));
        self.x(TExprKind::Println { pieces, args }, Ty::Unit)
    }
}

fn let_(local: LocalId, init: TExprId) -> TStmt {
    TStmt::Let {
        local: Some(local),
        init,
    }
}

fn stmt(e: TExprId) -> TStmt {
    TStmt::Expr(e)
}

fn check(env: &FakeEnv, def: DefId, expect: Expect) {
    expect.assert_eq(&env.listing(def));
}

/// Runs the program (from `main`) and shows its output and how it ended. The optimized
/// program must behave the same.
fn check_run(env: &FakeEnv, expect: Expect) {
    let program = env.program();
    let outcome = interp::run(&program, &InterpLimits::default());
    let optimized = IrProgram {
        functions: program
            .functions
            .iter()
            .map(|f| Arc::new(crate::ir::opt::optimize(f)))
            .collect(),
        main: program.main,
    };
    assert_eq!(
        interp::run(&optimized, &InterpLimits::default()),
        outcome,
        "the optimized program behaves differently"
    );
    let mut out = String::from_utf8_lossy(&outcome.stdout).into_owned();
    out.push_str(&format!("[exit {}]", outcome.status.exit_code()));
    let status = outcome.status.to_string().replace('\n', " / ");
    if !status.is_empty() {
        out.push_str(&format!(" {status}"));
    }
    out.push('\n');
    expect.assert_eq(&out);
}

// ---------------------------------------------------------------------------------------
// Layout.

#[test]
fn layout_follows_the_ir_conventions() {
    let mut env = FakeEnv::default();
    let p = env.strukt("P", &[("a", Ty::Bool), ("b", I64), ("c", I32)]);
    let q = env.strukt("Q", &[("c", I32), ("p", Ty::Struct(p)), ("u", Ty::Unit)]);
    let empty = env.strukt("E", &[]);
    let l = |ty: &Ty| {
        let Layout { size, align } = layout_of(&env, ty);
        format!("{size}/{align}")
    };
    let shown = [
        l(&Ty::Bool),
        l(&I32),
        l(&I64),
        l(&USIZE),
        l(&Ty::Unit),
        l(&Ty::Never),
        l(&Ty::Struct(p)),
        l(&Ty::Struct(q)),
        l(&Ty::Struct(empty)),
        l(&arr(Ty::Struct(p), 3)),
        l(&arr(arr(I32, 3), 2)),
        l(&arr(Ty::Unit, 5)),
        l(&arr(I64, u64::MAX)),
        format!("{:?}", struct_field_offsets(&env, p)),
        format!("{:?}", struct_field_offsets(&env, q)),
    ];
    expect![[r#"
        1/1 4/4 8/8 8/8 0/1 0/1 24/8 32/8 0/1 72/8 24/4 0/1 18446744073709551615/8 [0, 8, 16] [0, 8, 32]"#]]
    .assert_eq(&shown.join(" "));
}

#[test]
fn layout_of_a_recursive_struct_ends() {
    let mut env = FakeEnv::default();
    let a_id = fn_def_id("A");
    let b = env.strukt("B", &[("x", I32), ("a", Ty::Struct(a_id))]);
    env.strukt("A", &[("b", arr(Ty::Struct(b), 2)), ("y", I64)]);
    // Any size will do (the program is rejected with E0072); it must not hang or crash.
    let _ = layout_of(&env, &Ty::Struct(a_id));
    let _ = struct_field_offsets(&env, b);
}

#[test]
fn layout_of_a_long_struct_chain_does_not_recurse() {
    let mut env = FakeEnv::default();
    let mut prev = env.strukt("S0", &[("x", I32)]);
    for i in 1..100_000 {
        prev = env.strukt(
            &format!("S{i}"),
            &[("b", Ty::Bool), ("s", Ty::Struct(prev))],
        );
    }
    assert_eq!(layout_of(&env, &Ty::Struct(prev)).size, 4 * 100_000);
}

// ---------------------------------------------------------------------------------------
// Snapshots and runs.

#[test]
fn arithmetic_with_division_checks() {
    let mut env = FakeEnv::default();
    let f = env.declare("f", &[I32, I32], I32);
    let mut t = Tb::default();
    let a = t.param("a", I32);
    let b = t.param("b", I32);
    let (ea, eb) = (t.get(a), t.get(b));
    let q = t.bin(BinOp::Div, ea, eb);
    let ea = t.get(a);
    let three = t.i32(3);
    let r = t.bin(BinOp::Rem, ea, three);
    let sum = t.bin(BinOp::Add, q, r);
    let body = t.block(vec![], Some(sum));
    env.define(f, t, body);
    check(
        &env,
        f,
        expect![[r#"
            fn crate::f(v0: i32, v1: i32) -> i32 {
            bb0:
                v3 = const.i32 0
                v4 = ne.i32 v1, v3
                branch v4, bb1, bb4
            bb1:
                v5 = const.i32 -1
                v6 = ne.i32 v1, v5
                v7 = const.i32 -2147483648
                v8 = ne.i32 v0, v7
                v9 = or.bool v6, v8
                branch v9, bb2, bb3
            bb2:
                v2 = div.i32 v0, v1
                v10 = const.i32 3
                v11 = rem.i32 v0, v10
                v12 = add.i32 v2, v11
                return v12
            bb3:
                panic div_overflow
            bb4:
                panic div_by_zero
            }
        "#]],
    );
}

impl FakeEnv {
    /// Defines `fn main()` with these statements.
    fn main(&mut self, build: impl FnOnce(&mut Tb, &mut FakeEnv) -> Vec<TStmt>) -> DefId {
        let main = self.declare("main", &[], Ty::Unit);
        let mut t = Tb::default();
        let stmts = build(&mut t, self);
        let body = t.block(stmts, None);
        self.define(main, t, body);
        main
    }
}

#[test]
fn operand_read_before_a_later_assignment() {
    // let mut x = 1; let y = x + { x = 5; x }; println!("{} {}", y, x);
    let mut env = FakeEnv::default();
    env.main(|t, _| {
        let x = t.local("x", I32);
        let y = t.local("y", I32);
        let one = t.i32(1);
        let ex = t.get(x);
        let (ex2, five) = (t.get(x), t.i32(5));
        let asg = t.assign(ex2, five);
        let ex3 = t.get(x);
        let blk = t.block(vec![stmt(asg)], Some(ex3));
        let sum = t.bin(BinOp::Add, ex, blk);
        let (ey, ex4) = (t.get(y), t.get(x));
        let p = t.println("{} {}", vec![ey, ex4]);
        vec![let_(x, one), let_(y, sum), stmt(p)]
    });
    check_run(
        &env,
        expect![[r#"
        6 5
        [exit 0]
    "#]],
    );
}

#[test]
fn aggregates_are_copied_on_read() {
    // let a = P { x: 1, y: 2 }; let mut b = a; b.x = 10;
    // let mut arr = [a; 3]; arr[1].y = 7; let c = arr; arr[1].y = 8;
    // println!("{} {} {} {} {}", a.x, b.x, arr[0].y, arr[1].y, c[1].y);
    let mut env = FakeEnv::default();
    let p = env.strukt("P", &[("x", I64), ("y", I32)]);
    env.main(|t, env| {
        let a = t.local("a", Ty::Struct(p));
        let b = t.local("b", Ty::Struct(p));
        let ar = t.local("arr", arr(Ty::Struct(p), 3));
        let c = t.local("c", arr(Ty::Struct(p), 3));
        let (one, two) = (t.int(I64, 1), t.i32(2));
        let lit = t.lit(env, p, &[("x", one), ("y", two)]);
        let ea = t.get(a);
        let eb = t.get(b);
        let bx = t.field(env, eb, "x");
        let ten = t.int(I64, 10);
        let s1 = t.assign(bx, ten);
        let ea2 = t.get(a);
        let rep = t.repeat(ea2, 3);
        let (earr, i1, seven) = (t.get(ar), t.usize(1), t.i32(7));
        let el = t.index(earr, i1);
        let ely = t.field(env, el, "y");
        let s2 = t.assign(ely, seven);
        let earr2 = t.get(ar);
        let (earr3, i1b, eight) = (t.get(ar), t.usize(1), t.i32(8));
        let el = t.index(earr3, i1b);
        let ely = t.field(env, el, "y");
        let s3 = t.assign(ely, eight);
        let ea3 = t.get(a);
        let ax = t.field(env, ea3, "x");
        let eb2 = t.get(b);
        let bx2 = t.field(env, eb2, "x");
        let (e0, z) = (t.get(ar), t.usize(0));
        let a0 = t.index(e0, z);
        let a0y = t.field(env, a0, "y");
        let (e1, o) = (t.get(ar), t.usize(1));
        let a1 = t.index(e1, o);
        let a1y = t.field(env, a1, "y");
        let (ec, o) = (t.get(c), t.usize(1));
        let c1 = t.index(ec, o);
        let c1y = t.field(env, c1, "y");
        let pr = t.println("{} {} {} {} {}", vec![ax, bx2, a0y, a1y, c1y]);
        vec![
            let_(a, lit),
            let_(b, ea),
            stmt(s1),
            let_(ar, rep),
            stmt(s2),
            let_(c, earr2),
            stmt(s3),
            stmt(pr),
        ]
    });
    check_run(
        &env,
        expect![[r#"
        1 10 2 8 7
        [exit 0]
    "#]],
    );
}

/// `fn NAME(x: TY) -> TY { println!("NAME({})", x); x }`: shows when an argument is
/// evaluated.
fn traced(env: &mut FakeEnv, name: &str, ty: Ty) -> DefId {
    let f = env.declare(name, std::slice::from_ref(&ty), ty.clone());
    let mut t = Tb::default();
    let x = t.param("x", ty);
    let ex = t.get(x);
    let p = t.println(&format!("{name}({{}})"), vec![ex]);
    let ex = t.get(x);
    let body = t.block(vec![stmt(p)], Some(ex));
    env.define(f, t, body);
    f
}

#[test]
fn assignment_evaluates_the_value_first_then_the_indices_with_their_checks() {
    // let mut a = [[0i32; 2]; 2];
    // a[f(1)][f(0)] = g(3); a[f(1)][f(1)] += g(4);
    // println!("{}", a[f(1)][f(0)] + a[1][1]);
    // a[f(5)][f(9)] = g(3);   // g(3), f(5), then the bounds check panics
    let mut env = FakeEnv::default();
    let f = traced(&mut env, "f", USIZE);
    let g = traced(&mut env, "g", I32);
    env.main(|t, env| {
        let a = t.local("a", arr(arr(I32, 2), 2));
        let z = t.i32(0);
        let inner = t.repeat(z, 2);
        let init = t.repeat(inner, 2);
        let place = |t: &mut Tb, i: u64, j: u64| {
            let ea = t.get(a);
            let ai = t.usize(i);
            let fi = t.call(env, f, vec![ai]);
            let row = t.index(ea, fi);
            let aj = t.usize(j);
            let fj = t.call(env, f, vec![aj]);
            t.index(row, fj)
        };
        let p1 = place(t, 1, 0);
        let three = t.i32(3);
        let g3 = t.call(env, g, vec![three]);
        let s1 = t.assign(p1, g3);
        let p2 = place(t, 1, 1);
        let four = t.i32(4);
        let g4 = t.call(env, g, vec![four]);
        let s2 = t.assign_op(BinOp::Add, p2, g4);
        let r1 = place(t, 1, 0);
        let (ea, one, one2) = (t.get(a), t.usize(1), t.usize(1));
        let row = t.index(ea, one);
        let r2 = t.index(row, one2);
        let sum = t.bin(BinOp::Add, r1, r2);
        let pr = t.println("{}", vec![sum]);
        let p3 = place(t, 5, 9);
        let three = t.i32(3);
        let g3 = t.call(env, g, vec![three]);
        let s3 = t.assign(p3, g3);
        vec![let_(a, init), stmt(s1), stmt(s2), stmt(pr), stmt(s3)]
    });
    check_run(
        &env,
        expect![[r#"
        g(3)
        f(1)
        f(0)
        g(4)
        f(1)
        f(1)
        f(1)
        f(0)
        7
        g(3)
        f(5)
        [exit 101] thread 'main' panicked: / index out of bounds: the len is 2 but the index is 5
    "#]],
    );
}

#[test]
fn reading_an_element_evaluates_the_index_before_reading_the_array() {
    // let mut c = [1, 2]; let d = c[{ c[0] = 7; 0 }];   // 7, as rustc
    // let e = { c }[{ c[1] = 9; 1 }];                    // 2: `{ c }` is a copy
    let mut env = FakeEnv::default();
    env.main(|t, _| {
        let c = t.local("c", arr(I32, 2));
        let d = t.local("d", I32);
        let e = t.local("e", I32);
        let (one, two) = (t.i32(1), t.i32(2));
        let init = t.array(vec![one, two]);
        let (ec, z, seven) = (t.get(c), t.usize(0), t.i32(7));
        let c0 = t.index(ec, z);
        let asg = t.assign(c0, seven);
        let z = t.usize(0);
        let idx = t.block(vec![stmt(asg)], Some(z));
        let ec = t.get(c);
        let read = t.index(ec, idx);
        let ec = t.get(c);
        let copy = t.block(vec![], Some(ec));
        let (ec, o, nine) = (t.get(c), t.usize(1), t.i32(9));
        let c1 = t.index(ec, o);
        let asg = t.assign(c1, nine);
        let o = t.usize(1);
        let idx = t.block(vec![stmt(asg)], Some(o));
        let read2 = t.index(copy, idx);
        let (ed, ee) = (t.get(d), t.get(e));
        let pr = t.println("{} {}", vec![ed, ee]);
        vec![let_(c, init), let_(d, read), let_(e, read2), stmt(pr)]
    });
    check_run(
        &env,
        expect![[r#"
        7 2
        [exit 0]
    "#]],
    );
}

#[test]
fn call_arguments_left_to_right_with_aggregates_by_copy_and_sret() {
    // fn swap(mut p: P, k: i32) -> P { p.x += k; P { x: p.y, y: p.x } }
    // let a = P { x: 1, y: 2 }; let mut k = 10;
    // let b = swap(a, { k += 1; k });
    // println!("{} {} {} {} {}", a.x, a.y, b.x, b.y, k);
    let mut env = FakeEnv::default();
    let p = env.strukt("P", &[("x", I32), ("y", I32)]);
    let swap = env.declare("swap", &[Ty::Struct(p), I32], Ty::Struct(p));
    {
        let mut t = Tb::default();
        let pp = t.param("p", Ty::Struct(p));
        let k = t.param("k", I32);
        let (ep, ek) = (t.get(pp), t.get(k));
        let px = t.field(&env, ep, "x");
        let s = t.assign_op(BinOp::Add, px, ek);
        let ep = t.get(pp);
        let py = t.field(&env, ep, "y");
        let ep = t.get(pp);
        let px = t.field(&env, ep, "x");
        let lit = t.lit(&env, p, &[("x", py), ("y", px)]);
        let body = t.block(vec![stmt(s)], Some(lit));
        env.define(swap, t, body);
    }
    env.main(|t, env| {
        let a = t.local("a", Ty::Struct(p));
        let k = t.local("k", I32);
        let b = t.local("b", Ty::Struct(p));
        let (one, two) = (t.i32(1), t.i32(2));
        let lit = t.lit(env, p, &[("x", one), ("y", two)]);
        let ten = t.i32(10);
        let ea = t.get(a);
        let (ek, one) = (t.get(k), t.i32(1));
        let inc = t.assign_op(BinOp::Add, ek, one);
        let ek = t.get(k);
        let arg = t.block(vec![stmt(inc)], Some(ek));
        let call = t.call(env, swap, vec![ea, arg]);
        let fld = |t: &mut Tb, l, f| {
            let e = t.get(l);
            t.field(env, e, f)
        };
        let args = vec![
            fld(t, a, "x"),
            fld(t, a, "y"),
            fld(t, b, "x"),
            fld(t, b, "y"),
            t.get(k),
        ];
        let pr = t.println("{} {} {} {} {}", args);
        vec![let_(a, lit), let_(k, ten), let_(b, call), stmt(pr)]
    });
    check(
        &env,
        swap,
        expect![[r#"
            fn crate::swap(sret v0: ptr, v1: ptr, v2: i32) {
            bb0:
                v3 = load.i32 [v1]
                v4 = add.i32 v3, v2
                store.i32 [v1], v4
                v5 = load.i32 [v1+4]
                store.i32 [v0], v5
                v6 = load.i32 [v1]
                store.i32 [v0+4], v6
                return
            }
        "#]],
    );
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                slot0: size 8, align 4
                slot1: size 8, align 4
                slot2: size 8, align 4
                data0: " "
                data1: "\n"
            bb0:
                v0 = const.i32 1
                v1 = slot_addr slot0
                store.i32 [v1], v0
                v2 = const.i32 2
                store.i32 [v1+4], v2
                v3 = const.i32 10
                v4 = slot_addr slot2
                memcopy [v4], [v1], 8
                v3 = add.i32 v3, v0
                v5 = slot_addr slot1
                call crate::swap(v5, v4, v3)
                v6 = load.i32 [v1]
                v7 = load.i32 [v1+4]
                v8 = load.i32 [v5]
                v9 = load.i32 [v5+4]
                print.i32 v6
                print.str data0 " "
                print.i32 v7
                print.str data0 " "
                print.i32 v8
                print.str data0 " "
                print.i32 v9
                print.str data0 " "
                print.i32 v3
                print.str data1 "\n"
                return
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            1 2 2 12 11
            [exit 0]
        "#]],
    );
}

/// `for i in start..end { println!("{}", i); }` (or `..=`) over `ty`.
fn counting_loop(env: &mut FakeEnv, ty: Ty, start: i128, end: i128, inclusive: bool) {
    env.main(|t, _| {
        let i = t.local("i", ty.clone());
        let (s, e) = (t.int(ty.clone(), start), t.int(ty.clone(), end));
        let lp = t.for_(i, s, e, inclusive, |t, _| {
            let ei = t.get(i);
            let p = t.println("{}", vec![ei]);
            t.block(vec![stmt(p)], None)
        });
        let done = t.println("done", vec![]);
        vec![stmt(lp), stmt(done)]
    });
}

#[test]
fn inclusive_range_up_to_max_stops_after_max() {
    let mut env = FakeEnv::default();
    counting_loop(&mut env, U64, u64::MAX as i128 - 2, u64::MAX as i128, true);
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                data0: "\n"
                data1: "done\n"
            bb0:
                v0 = const.u64 18446744073709551613
                v1 = const.u64 18446744073709551615
                v2 = le.u64 v0, v1
                branch v2, bb1, bb4
            bb1:
                v3 = copy.u64 v0
                print.u64 v3
                print.str data0 "\n"
                jump bb2
            bb2:
                v4 = eq.u64 v0, v1
                branch v4, bb4, bb3
            bb3:
                v5 = const.u64 1
                v0 = add.u64 v0, v5
                jump bb1
            bb4:
                print.str data1 "done\n"
                return
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            18446744073709551613
            18446744073709551614
            18446744073709551615
            done
            [exit 0]
        "#]],
    );
    let mut env = FakeEnv::default();
    counting_loop(&mut env, I32, i32::MAX as i128 - 1, i32::MAX as i128, true);
    check_run(
        &env,
        expect![[r#"
            2147483646
            2147483647
            done
            [exit 0]
        "#]],
    );
}

#[test]
fn exclusive_range_and_empty_ranges() {
    let mut env = FakeEnv::default();
    counting_loop(&mut env, I64, -2, 1, false);
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                data0: "\n"
                data1: "done\n"
            bb0:
                v0 = const.i64 -2
                v1 = const.i64 1
                jump bb1
            bb1:
                v2 = lt.i64 v0, v1
                branch v2, bb2, bb4
            bb2:
                v3 = copy.i64 v0
                print.i64 v3
                print.str data0 "\n"
                jump bb3
            bb3:
                v4 = const.i64 1
                v0 = add.i64 v0, v4
                jump bb1
            bb4:
                print.str data1 "done\n"
                return
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            -2
            -1
            0
            done
            [exit 0]
        "#]],
    );
    for (start, end, inclusive) in [(5, 3, false), (5, 5, false), (5, 4, true), (-1, -2, true)] {
        let mut env = FakeEnv::default();
        counting_loop(&mut env, I32, start, end, inclusive);
        check_run(
            &env,
            expect![[r#"
            done
            [exit 0]
        "#]],
        );
    }
}

#[test]
fn range_is_evaluated_once_and_the_binding_is_fresh_each_iteration() {
    // let mut n = 3; for mut i in 0..n { n += 10; i *= 2; println!("{} {}", i, n); }
    let mut env = FakeEnv::default();
    env.main(|t, _| {
        let n = t.local("n", I32);
        let i = t.local("i", I32);
        let three = t.i32(3);
        let (z, en) = (t.i32(0), t.get(n));
        let lp = t.for_(i, z, en, false, |t, _| {
            let (en, ten) = (t.get(n), t.i32(10));
            let s1 = t.assign_op(BinOp::Add, en, ten);
            let (ei, two) = (t.get(i), t.i32(2));
            let s2 = t.assign_op(BinOp::Mul, ei, two);
            let (ei, en) = (t.get(i), t.get(n));
            let p = t.println("{} {}", vec![ei, en]);
            t.block(vec![stmt(s1), stmt(s2), stmt(p)], None)
        });
        vec![let_(n, three), stmt(lp)]
    });
    check_run(
        &env,
        expect![[r#"
            0 13
            2 23
            4 33
            [exit 0]
        "#]],
    );
}

#[test]
fn loops_with_break_values_labels_and_continue() {
    // let mut i = 0;
    // let v = 'outer: loop {
    //     i += 1;
    //     let mut j = 0;
    //     while j < 10 {
    //         j += 1;
    //         if j == 2 { continue; }
    //         if j == 4 { continue 'outer; }
    //         if i == 3 { break 'outer i * 100 + j; }
    //         println!("{} {}", i, j);
    //     }
    // };
    // println!("{}", v);
    let mut env = FakeEnv::default();
    env.main(|t, _| {
        let i = t.local("i", I32);
        let j = t.local("j", I32);
        let v = t.local("v", I32);
        let z = t.i32(0);
        let outer = t.loop_(I32, |t, outer| {
            let (ei, one) = (t.get(i), t.i32(1));
            let inc_i = t.assign_op(BinOp::Add, ei, one);
            let z = t.i32(0);
            let (ej, ten) = (t.get(j), t.i32(10));
            let cond = t.bin(BinOp::Lt, ej, ten);
            let wh = t.x(TExprKind::Unit, Ty::Unit);
            let (ej, one) = (t.get(j), t.i32(1));
            let inc_j = t.assign_op(BinOp::Add, ej, one);
            let (ej, two) = (t.get(j), t.i32(2));
            let c1 = t.bin(BinOp::Eq, ej, two);
            let k = t.cont(wh);
            let k = t.never_block(vec![stmt(k)]);
            let if1 = t.if_(c1, k, None);
            let (ej, four) = (t.get(j), t.i32(4));
            let c2 = t.bin(BinOp::Eq, ej, four);
            let k = t.cont(outer);
            let k = t.never_block(vec![stmt(k)]);
            let if2 = t.if_(c2, k, None);
            let (ei, three) = (t.get(i), t.i32(3));
            let c3 = t.bin(BinOp::Eq, ei, three);
            let (ei, hundred) = (t.get(i), t.i32(100));
            let m = t.bin(BinOp::Mul, ei, hundred);
            let ej = t.get(j);
            let val = t.bin(BinOp::Add, m, ej);
            let k = t.brk(outer, Some(val));
            let k = t.never_block(vec![stmt(k)]);
            let if3 = t.if_(c3, k, None);
            let (ei, ej) = (t.get(i), t.get(j));
            let p = t.println("{} {}", vec![ei, ej]);
            let wbody = t.block(
                vec![stmt(inc_j), stmt(if1), stmt(if2), stmt(if3), stmt(p)],
                None,
            );
            t.exprs[wh.0 as usize].kind = TExprKind::While { cond, body: wbody };
            t.block(vec![stmt(inc_i), let_(j, z), stmt(wh)], None)
        });
        let ev = t.get(v);
        let p = t.println("{}", vec![ev]);
        vec![let_(i, z), let_(v, outer), stmt(p)]
    });
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                data0: " "
                data1: "\n"
            bb0:
                v0 = const.i32 0
                jump bb1
            bb1:
                v2 = const.i32 1
                v0 = add.i32 v0, v2
                v3 = const.i32 0
                jump bb2
            bb2:
                v4 = const.i32 10
                v5 = lt.i32 v3, v4
                branch v5, bb3, bb1
            bb3:
                v6 = const.i32 1
                v3 = add.i32 v3, v6
                v7 = const.i32 2
                v8 = eq.i32 v3, v7
                branch v8, bb2, bb4
            bb4:
                v9 = const.i32 4
                v10 = eq.i32 v3, v9
                branch v10, bb1, bb5
            bb5:
                v11 = const.i32 3
                v12 = eq.i32 v0, v11
                branch v12, bb6, bb8
            bb6:
                v13 = const.i32 100
                v14 = mul.i32 v0, v13
                v1 = add.i32 v14, v3
                jump bb7
            bb7:
                print.i32 v1
                print.str data1 "\n"
                return
            bb8:
                print.i32 v0
                print.str data0 " "
                print.i32 v3
                print.str data1 "\n"
                jump bb2
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            1 1
            1 3
            2 1
            2 3
            301
            [exit 0]
        "#]],
    );
}

#[test]
fn wrapping_arithmetic_masked_shifts_and_casts() {
    // let m = i32::MAX; let one = 1i32; let neg = -1i32; let n36 = 36u64;
    // println!("{} {} {} {} {}", m + one, -(m + one), one << 33, one << neg, -16i32 >> n36);
    // println!("{} {} {} {}", neg as u64, (m as i64) * 4, 300i64 as i32 as u64, true as i32);
    // println!("{} {} {}", !5i32, !true, (u64::MAX as usize) >> 63i32);
    let mut env = FakeEnv::default();
    env.main(|t, _| {
        let m = t.local("m", I32);
        let one = t.local("one", I32);
        let neg = t.local("neg", I32);
        let n36 = t.local("n36", U64);
        let (c_m, c_1, c_neg, c_36) = (t.i32(i32::MAX), t.i32(1), t.i32(-1), t.int(U64, 36));
        let (em, e1) = (t.get(m), t.get(one));
        let a1 = t.bin(BinOp::Add, em, e1);
        let (em, e1) = (t.get(m), t.get(one));
        let sum = t.bin(BinOp::Add, em, e1);
        let a2 = t.unary(UnOp::Neg, sum);
        let (e1, c33) = (t.get(one), t.i32(33));
        let a3 = t.bin(BinOp::Shl, e1, c33);
        let (e1, en) = (t.get(one), t.get(neg));
        let a4 = t.bin(BinOp::Shl, e1, en);
        let (c16, e36) = (t.i32(16), t.get(n36));
        let m16 = t.unary(UnOp::Neg, c16);
        let a5 = t.bin(BinOp::Shr, m16, e36);
        let p1 = t.println("{} {} {} {} {}", vec![a1, a2, a3, a4, a5]);
        let en = t.get(neg);
        let b1 = t.cast(en, IntTy::U64);
        let em = t.get(m);
        let mi = t.cast(em, IntTy::I64);
        let four = t.int(I64, 4);
        let b2 = t.bin(BinOp::Mul, mi, four);
        let c300 = t.int(I64, 300);
        let c = t.cast(c300, IntTy::I32);
        let b3 = t.cast(c, IntTy::U64);
        let tr = t.bool(true);
        let b4 = t.cast(tr, IntTy::I32);
        let p2 = t.println("{} {} {} {}", vec![b1, b2, b3, b4]);
        let e1 = t.get(one);
        let five = t.bin(BinOp::Add, e1, e1);
        let c1 = t.unary(UnOp::Not, five);
        let tr = t.bool(true);
        let c2 = t.unary(UnOp::Not, tr);
        let max = t.int(U64, u64::MAX as i128);
        let mx = t.cast(max, IntTy::Usize);
        let s63 = t.i32(63);
        let c3 = t.bin(BinOp::Shr, mx, s63);
        let p3 = t.println("{} {} {}", vec![c1, c2, c3]);
        vec![
            let_(m, c_m),
            let_(one, c_1),
            let_(neg, c_neg),
            let_(n36, c_36),
            stmt(p1),
            stmt(p2),
            stmt(p3),
        ]
    });
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                data0: " "
                data1: "\n"
            bb0:
                v0 = const.i32 2147483647
                v1 = const.i32 1
                v2 = const.i32 -1
                v3 = const.u64 36
                v4 = add.i32 v0, v1
                v5 = add.i32 v0, v1
                v6 = neg.i32 v5
                v7 = const.i32 33
                v8 = shl.i32 v1, v7
                v9 = shl.i32 v1, v2
                v10 = const.i32 -16
                v11 = shr.i32 v10, v3
                print.i32 v4
                print.str data0 " "
                print.i32 v6
                print.str data0 " "
                print.i32 v8
                print.str data0 " "
                print.i32 v9
                print.str data0 " "
                print.i32 v11
                print.str data1 "\n"
                v12 = cast.i32.u64 v2
                v13 = cast.i32.i64 v0
                v14 = const.i64 4
                v15 = mul.i64 v13, v14
                v16 = const.i32 300
                v17 = cast.i32.u64 v16
                v18 = const.i32 1
                print.u64 v12
                print.str data0 " "
                print.i64 v15
                print.str data0 " "
                print.u64 v17
                print.str data0 " "
                print.i32 v18
                print.str data1 "\n"
                v19 = add.i32 v1, v1
                v20 = not.i32 v19
                v21 = const.bool false
                v22 = const.u64 18446744073709551615
                v23 = const.i32 63
                v24 = shr.u64 v22, v23
                print.i32 v20
                print.str data0 " "
                print.bool v21
                print.str data0 " "
                print.u64 v24
                print.str data1 "\n"
                return
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            -2147483648 -2147483648 2 -2147483648 -1
            18446744073709551615 8589934588 300 1
            -3 false 1
            [exit 0]
        "#]],
    );
}

/// `fn main() { let a = A; let b = B; println!("{}", a OP b); }` over `ty`.
fn binary_program(env: &mut FakeEnv, ty: Ty, op: BinOp, a: i128, b: i128) {
    env.main(|t, _| {
        let la = t.local("a", ty.clone());
        let lb = t.local("b", ty.clone());
        let (ca, cb) = (t.int(ty.clone(), a), t.int(ty.clone(), b));
        let (ea, eb) = (t.get(la), t.get(lb));
        let r = t.bin(op, ea, eb);
        let p = t.println("{}", vec![r]);
        vec![let_(la, ca), let_(lb, cb), stmt(p)]
    });
}

#[test]
fn division_and_remainder_panics() {
    let cases = [
        (I32, BinOp::Div, 7, 0),
        (I32, BinOp::Rem, 7, 0),
        (I32, BinOp::Div, i32::MIN as i128, -1),
        (I32, BinOp::Rem, i32::MIN as i128, -1),
        (I64, BinOp::Div, i64::MIN as i128, -1),
        (I64, BinOp::Rem, i64::MIN as i128, -1),
        (I64, BinOp::Div, i64::MIN as i128, 2),
        (I32, BinOp::Rem, -7, 2),
        (U64, BinOp::Div, u64::MAX as i128, 0),
        (U64, BinOp::Div, u64::MAX as i128, u64::MAX as i128),
    ];
    let mut out = String::new();
    for (ty, op, a, b) in cases {
        let mut env = FakeEnv::default();
        binary_program(&mut env, ty, op, a, b);
        let outcome = interp::run(&env.program(), &InterpLimits::default());
        out.push_str(&format!(
            "{a} {} {b}: {}{}\n",
            op.as_str(),
            String::from_utf8_lossy(&outcome.stdout).trim_end(),
            outcome.status.to_string().replace('\n', " / ")
        ));
    }
    expect![[r#"
        7 / 0: thread 'main' panicked: / attempt to divide by zero
        7 % 0: thread 'main' panicked: / attempt to calculate the remainder with a divisor of zero
        -2147483648 / -1: thread 'main' panicked: / attempt to divide with overflow
        -2147483648 % -1: thread 'main' panicked: / attempt to calculate the remainder with overflow
        -9223372036854775808 / -1: thread 'main' panicked: / attempt to divide with overflow
        -9223372036854775808 % -1: thread 'main' panicked: / attempt to calculate the remainder with overflow
        -9223372036854775808 / 2: -4611686018427387904
        -7 % 2: -1
        18446744073709551615 / 0: thread 'main' panicked: / attempt to divide by zero
        18446744073709551615 / 18446744073709551615: 1
    "#]]
    .assert_eq(&out);
}

#[test]
fn division_by_a_literal_skips_the_checks_it_makes_unnecessary() {
    // fn f(a: i64, b: i64) -> i64 { a / 2 + a % -1 + 10 / b + i64::MIN / b }
    let mut env = FakeEnv::default();
    let f = env.declare("f", &[I64, I64], I64);
    let mut t = Tb::default();
    let a = t.param("a", I64);
    let b = t.param("b", I64);
    let (ea, two) = (t.get(a), t.int(I64, 2));
    let d1 = t.bin(BinOp::Div, ea, two);
    let (ea, m1) = (t.get(a), t.int(I64, 1));
    let m1 = t.unary(UnOp::Neg, m1);
    let d2 = t.bin(BinOp::Rem, ea, m1);
    let (ten, eb) = (t.int(I64, 10), t.get(b));
    let d3 = t.bin(BinOp::Div, ten, eb);
    let (min, eb) = (t.int(I64, i64::MIN as i128), t.get(b));
    let d4 = t.bin(BinOp::Div, min, eb);
    let s = t.bin(BinOp::Add, d1, d2);
    let s = t.bin(BinOp::Add, s, d3);
    let s = t.bin(BinOp::Add, s, d4);
    let body = t.block(vec![], Some(s));
    env.define(f, t, body);
    check(
        &env,
        f,
        expect![[r#"
            fn crate::f(v0: i64, v1: i64) -> i64 {
            bb0:
                v2 = const.i64 2
                v3 = div.i64 v0, v2
                v4 = const.i64 -1
                v6 = const.i64 -9223372036854775808
                v7 = ne.i64 v0, v6
                branch v7, bb1, bb7
            bb1:
                v5 = rem.i64 v0, v4
                v8 = add.i64 v3, v5
                v9 = const.i64 10
                v11 = const.i64 0
                v12 = ne.i64 v1, v11
                branch v12, bb2, bb6
            bb2:
                v10 = div.i64 v9, v1
                v13 = add.i64 v8, v10
                v14 = const.i64 -9223372036854775808
                v16 = const.i64 0
                v17 = ne.i64 v1, v16
                branch v17, bb3, bb6
            bb3:
                v18 = const.i64 -1
                v19 = ne.i64 v1, v18
                branch v19, bb4, bb5
            bb4:
                v15 = div.i64 v14, v1
                v20 = add.i64 v13, v15
                return v20
            bb5:
                panic div_overflow
            bb6:
                panic div_by_zero
            bb7:
                panic rem_overflow
            }
        "#]],
    );
}

#[test]
fn logical_operators_short_circuit() {
    // fn t(x: bool) -> bool { println!("t({})", x); x }
    // println!("{}", t(false) && t(true)); println!("{}", t(true) || t(false));
    // println!("{}", t(true) && t(false) || t(true));
    let mut env = FakeEnv::default();
    let tr = traced(&mut env, "t", Ty::Bool);
    env.main(|t, env| {
        let call = |t: &mut Tb, b| {
            let v = t.bool(b);
            t.call(env, tr, vec![v])
        };
        let (a, b) = (call(t, false), call(t, true));
        let x = t.and(a, b);
        let p1 = t.println("{}", vec![x]);
        let (a, b) = (call(t, true), call(t, false));
        let x = t.or(a, b);
        let p2 = t.println("{}", vec![x]);
        let (a, b, c) = (call(t, true), call(t, false), call(t, true));
        let x = t.and(a, b);
        let x = t.or(x, c);
        let p3 = t.println("{}", vec![x]);
        vec![stmt(p1), stmt(p2), stmt(p3)]
    });
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                data0: "\n"
            bb0:
                v1 = const.bool false
                v0 = call.bool crate::t(v1)
                branch v0, bb1, bb2
            bb1:
                v2 = const.bool true
                v0 = call.bool crate::t(v2)
                jump bb2
            bb2:
                print.bool v0
                print.str data0 "\n"
                v4 = const.bool true
                v3 = call.bool crate::t(v4)
                branch v3, bb4, bb3
            bb3:
                v5 = const.bool false
                v3 = call.bool crate::t(v5)
                jump bb4
            bb4:
                print.bool v3
                print.str data0 "\n"
                v7 = const.bool true
                v6 = call.bool crate::t(v7)
                branch v6, bb5, bb6
            bb5:
                v8 = const.bool false
                v6 = call.bool crate::t(v8)
                jump bb6
            bb6:
                branch v6, bb8, bb7
            bb7:
                v9 = const.bool true
                v6 = call.bool crate::t(v9)
                jump bb8
            bb8:
                print.bool v6
                print.str data0 "\n"
                return
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            t(false)
            false
            t(true)
            true
            t(true)
            t(false)
            t(true)
            true
            [exit 0]
        "#]],
    );
}

#[test]
fn constants_scalars_inline_aggregates_as_data_with_runtime_bounds_checks() {
    // const N: i64 = -5; const T: [P; 2] = [P { a: true, b: 7 }, P { a: false, b: -1 }];
    // let mut c = T; c[0].b = 100;
    // println!("{} {} {} {} {}", N, T[1].b, T[1].a, c[0].b, T[0].b);
    // let i = 2usize; println!("{}", T[i].b);   // panics at run time
    let mut env = FakeEnv::default();
    let p = env.strukt("P", &[("a", Ty::Bool), ("b", I32)]);
    let n = env.konst("N", I64, ConstValue::Int(IntTy::I64, -5i64 as u64));
    let pv = |a: bool, b: i32| {
        ConstValue::Struct(
            p,
            Arc::from(vec![
                ConstValue::Bool(a),
                ConstValue::Int(IntTy::I32, b as i64 as u64),
            ]),
        )
    };
    let tv = ConstValue::Array(Arc::from(vec![pv(true, 7), pv(false, -1)]));
    let tc = env.konst("T", arr(Ty::Struct(p), 2), tv);
    env.main(|t, env| {
        let c = t.local("c", arr(Ty::Struct(p), 2));
        let i = t.local("i", USIZE);
        let init = t.konst(env, tc);
        let (ec, z, hundred) = (t.get(c), t.usize(0), t.i32(100));
        let c0 = t.index(ec, z);
        let c0b = t.field(env, c0, "b");
        let s = t.assign(c0b, hundred);
        let en = t.konst(env, n);
        let (et, one) = (t.konst(env, tc), t.usize(1));
        let t1 = t.index(et, one);
        let t1b = t.field(env, t1, "b");
        let (et, one) = (t.konst(env, tc), t.usize(1));
        let t1 = t.index(et, one);
        let t1a = t.field(env, t1, "a");
        let (ec, z) = (t.get(c), t.usize(0));
        let c0 = t.index(ec, z);
        let c0b = t.field(env, c0, "b");
        let (et, z) = (t.konst(env, tc), t.usize(0));
        let t0 = t.index(et, z);
        let t0b = t.field(env, t0, "b");
        let p1 = t.println("{} {} {} {} {}", vec![en, t1b, t1a, c0b, t0b]);
        let two = t.usize(2);
        let (et, ei) = (t.konst(env, tc), t.get(i));
        let ti = t.index(et, ei);
        let tib = t.field(env, ti, "b");
        let p2 = t.println("{}", vec![tib]);
        vec![let_(c, init), stmt(s), stmt(p1), let_(i, two), stmt(p2)]
    });
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                slot0: size 16, align 4
                data0: [01 00 00 00 07 00 00 00 00 00 00 00 ff ff ff ff]
                data1: " "
                data2: "\n"
            bb0:
                v0 = slot_addr slot0
                v1 = data_addr data0
                memcopy [v0], [v1], 16
                v2 = const.i32 100
                store.i32 [v0+4], v2
                v3 = const.i64 -5
                v4 = load.i32 [v1+12]
                v5 = load.bool [v1+8]
                v6 = load.i32 [v0+4]
                v7 = load.i32 [v1+4]
                print.i64 v3
                print.str data1 " "
                print.i32 v4
                print.str data1 " "
                print.bool v5
                print.str data1 " "
                print.i32 v6
                print.str data1 " "
                print.i32 v7
                print.str data2 "\n"
                v8 = const.u64 2
                v9 = const.u64 2
                v10 = lt.u64 v8, v9
                branch v10, bb1, bb2
            bb1:
                v11 = data_addr data0
                v12 = elem_addr v11 + v8 * 8
                v13 = load.i32 [v12+4]
                print.i32 v13
                print.str data2 "\n"
                return
            bb2:
                panic index_out_of_bounds v8, len 2
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            -5 -1 false 100 7
            [exit 101] thread 'main' panicked: / index out of bounds: the len is 2 but the index is 2
        "#]],
    );
}

#[test]
fn println_merges_text_and_evaluates_every_argument_before_printing() {
    // fn f(x: i32) -> i32 { println!("f({})", x); x }
    // let mut x = 1;
    // println!("{{a}} {}{} and {} }}", f(1), x, { x = 2; f(x) });
    // println!(); println!("{}", true);
    let mut env = FakeEnv::default();
    let f = traced(&mut env, "f", I32);
    env.main(|t, env| {
        let x = t.local("x", I32);
        let one = t.i32(1);
        let one2 = t.i32(1);
        let f1 = t.call(env, f, vec![one2]);
        let ex = t.get(x);
        let (ex2, two) = (t.get(x), t.i32(2));
        let asg = t.assign(ex2, two);
        let ex3 = t.get(x);
        let fx = t.call(env, f, vec![ex3]);
        let blk = t.block(vec![stmt(asg)], Some(fx));
        let p1 = t.println("{a} {}{} and {} }", vec![f1, ex, blk]);
        let p2 = t.println("", vec![]);
        let tr = t.bool(true);
        let p3 = t.println("{}", vec![tr]);
        vec![let_(x, one), stmt(p1), stmt(p2), stmt(p3)]
    });
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                data0: "{a} "
                data1: " and "
                data2: " }\n"
                data3: "\n"
            bb0:
                v0 = const.i32 1
                v1 = const.i32 1
                v2 = call.i32 crate::f(v1)
                v3 = copy.i32 v0
                v0 = const.i32 2
                v4 = call.i32 crate::f(v0)
                print.str data0 "{a} "
                print.i32 v2
                print.i32 v3
                print.str data1 " and "
                print.i32 v4
                print.str data2 " }\n"
                print.str data3 "\n"
                v5 = const.bool true
                print.bool v5
                print.str data3 "\n"
                return
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            f(1)
            f(2)
            {a} 11 and 2 }

            true
            [exit 0]
        "#]],
    );
}

#[test]
fn repeat_evaluates_its_value_once_even_for_zero_elements() {
    // let a = [f(3) as i64; 0]; let b = [f(4) as i64; 100]; let c = [P { x: f(5), y: 1 }; 3];
    // println!("{} {} {}", b[0] + b[99], c[2].x, c[1].y);
    let mut env = FakeEnv::default();
    let f = traced(&mut env, "f", I32);
    let p = env.strukt("P", &[("x", I32), ("y", I32)]);
    env.main(|t, env| {
        let a = t.local("a", arr(I64, 0));
        let b = t.local("b", arr(I64, 100));
        let c = t.local("c", arr(Ty::Struct(p), 3));
        let three = t.i32(3);
        let f3 = t.call(env, f, vec![three]);
        let f3 = t.cast(f3, IntTy::I64);
        let ra = t.repeat(f3, 0);
        let four = t.i32(4);
        let f4 = t.call(env, f, vec![four]);
        let f4 = t.cast(f4, IntTy::I64);
        let rb = t.repeat(f4, 100);
        let five = t.i32(5);
        let f5 = t.call(env, f, vec![five]);
        let one = t.i32(1);
        let lit = t.lit(env, p, &[("x", f5), ("y", one)]);
        let rc = t.repeat(lit, 3);
        let (eb, z) = (t.get(b), t.usize(0));
        let b0 = t.index(eb, z);
        let (eb, n) = (t.get(b), t.usize(99));
        let b99 = t.index(eb, n);
        let sum = t.bin(BinOp::Add, b0, b99);
        let (ec, two) = (t.get(c), t.usize(2));
        let c2 = t.index(ec, two);
        let c2x = t.field(env, c2, "x");
        let (ec, one) = (t.get(c), t.usize(1));
        let c1 = t.index(ec, one);
        let c1y = t.field(env, c1, "y");
        let pr = t.println("{} {} {}", vec![sum, c2x, c1y]);
        vec![let_(a, ra), let_(b, rb), let_(c, rc), stmt(pr)]
    });
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                slot0: size 0, align 8
                slot1: size 800, align 8
                slot2: size 24, align 4
                slot3: size 8, align 4
                data0: " "
                data1: "\n"
            bb0:
                v0 = const.i32 3
                v1 = call.i32 crate::f(v0)
                v2 = cast.i32.i64 v1
                v3 = const.i32 4
                v4 = call.i32 crate::f(v3)
                v5 = cast.i32.i64 v4
                v6 = slot_addr slot1
                v7 = const.u64 0
                v8 = const.u64 100
                jump bb1
            bb1:
                v9 = lt.u64 v7, v8
                branch v9, bb2, bb3
            bb2:
                v10 = elem_addr v6 + v7 * 8
                store.i64 [v10], v5
                v11 = const.u64 1
                v7 = add.u64 v7, v11
                jump bb1
            bb3:
                v12 = const.i32 5
                v13 = call.i32 crate::f(v12)
                v14 = slot_addr slot3
                store.i32 [v14], v13
                v15 = const.i32 1
                store.i32 [v14+4], v15
                v16 = slot_addr slot2
                memcopy [v16], [v14], 8
                v17 = const.u64 8
                v18 = elem_addr v16 + v17 * 1
                memcopy [v18], [v14], 8
                v19 = const.u64 16
                v20 = elem_addr v16 + v19 * 1
                memcopy [v20], [v14], 8
                v22 = slot_addr slot1
                v21 = load.i64 [v22]
                v23 = load.i64 [v22+792]
                v24 = add.i64 v21, v23
                v25 = load.i32 [v16+16]
                v26 = load.i32 [v16+12]
                print.i64 v24
                print.str data0 " "
                print.i32 v25
                print.str data0 " "
                print.i32 v26
                print.str data1 "\n"
                return
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            f(3)
            f(4)
            f(5)
            8 5 1
            [exit 0]
        "#]],
    );
}

#[test]
fn code_after_a_diverging_expression_is_dropped() {
    // fn f(c: bool) -> i32 {
    //     let x: i32 = if c { return 1; } else { 2 };
    //     let y: i32 = { return x + 1; };
    //     println!("dead");
    //     y
    // }
    let mut env = FakeEnv::default();
    let f = env.declare("f", &[Ty::Bool], I32);
    let mut t = Tb::default();
    let c = t.param("c", Ty::Bool);
    let x = t.local("x", I32);
    let y = t.local("y", I32);
    let ec = t.get(c);
    let one = t.i32(1);
    let r1 = t.ret(Some(one));
    let then_b = t.never_block(vec![stmt(r1)]);
    let then_b = t.never_to(then_b, I32);
    let two = t.i32(2);
    let else_b = t.block(vec![], Some(two));
    let ife = t.if_(ec, then_b, Some(else_b));
    let (ex, one) = (t.get(x), t.i32(1));
    let sum = t.bin(BinOp::Add, ex, one);
    let r2 = t.ret(Some(sum));
    let blk = t.never_block(vec![stmt(r2)]);
    let blk = t.never_to(blk, I32);
    let dead = t.println("dead", vec![]);
    let ey = t.get(y);
    let body = t.block(vec![let_(x, ife), let_(y, blk), stmt(dead)], Some(ey));
    env.define(f, t, body);
    check(
        &env,
        f,
        expect![[r#"
            fn crate::f(v0: bool) -> i32 {
            bb0:
                branch v0, bb1, bb2
            bb1:
                v2 = const.i32 1
                return v2
            bb2:
                v1 = const.i32 2
                jump bb3
            bb3:
                v5 = const.i32 1
                v6 = add.i32 v1, v5
                return v6
            }
        "#]],
    );
}

#[test]
fn an_error_expression_becomes_unreachable() {
    // fn f(a: i32) -> i32 { a + <error> }
    let mut env = FakeEnv::default();
    let f = env.declare("f", &[I32], I32);
    let mut t = Tb::default();
    let a = t.param("a", I32);
    let ea = t.get(a);
    let err = t.x(TExprKind::Error, Ty::Error);
    let sum = t.bin(BinOp::Add, ea, err);
    let body = t.block(vec![], Some(sum));
    env.define(f, t, body);
    check(
        &env,
        f,
        expect![[r#"
            fn crate::f(v0: i32) -> i32 {
            bb0:
                unreachable
            }
        "#]],
    );
    // An unknown callee (its signature had an error) too.
    let g = env.id("g");
    let h = env.declare("h", &[], Ty::Unit);
    let mut t = Tb::default();
    let one = t.i32(1);
    let args = t.lists.push_exprs(&[one]);
    let callee = t.lists.push_def(g);
    let call = t.x(TExprKind::Call { callee, args }, I32);
    let body = t.block(vec![stmt(call)], None);
    env.define(h, t, body);
    check(
        &env,
        h,
        expect![[r#"
            fn crate::h() {
            bb0:
                unreachable
            }
        "#]],
    );
}

#[test]
fn unit_values_take_no_storage_and_unit_parameters_are_not_passed() {
    // fn u(a: (), b: i32, c: ()) -> () { println!("{}", b); }
    // let z = (); let w = u(z, 5, ()); u(w, 6, u((), 7, ()));
    let mut env = FakeEnv::default();
    let u = env.declare("u", &[Ty::Unit, I32, Ty::Unit], Ty::Unit);
    let mut t = Tb::default();
    t.param("a", Ty::Unit);
    let b = t.param("b", I32);
    t.param("c", Ty::Unit);
    let eb = t.get(b);
    let p = t.println("{}", vec![eb]);
    let body = t.block(vec![stmt(p)], None);
    env.define(u, t, body);
    env.main(|t, env| {
        let z = t.local("z", Ty::Unit);
        let w = t.local("w", Ty::Unit);
        let unit = t.unit();
        let (ez, five, unit2) = (t.get(z), t.i32(5), t.unit());
        let c1 = t.call(env, u, vec![ez, five, unit2]);
        let (u1, seven, u2) = (t.unit(), t.i32(7), t.unit());
        let inner = t.call(env, u, vec![u1, seven, u2]);
        let (ew, six) = (t.get(w), t.i32(6));
        let c2 = t.call(env, u, vec![ew, six, inner]);
        vec![let_(z, unit), let_(w, c1), stmt(c2)]
    });
    check(
        &env,
        u,
        expect![[r#"
            fn crate::u(v0: i32) {
                data0: "\n"
            bb0:
                print.i32 v0
                print.str data0 "\n"
                return
            }
        "#]],
    );
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
            bb0:
                v0 = const.i32 5
                call crate::u(v0)
                v1 = const.i32 6
                v2 = const.i32 7
                call crate::u(v2)
                call crate::u(v1)
                return
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            5
            7
            6
            [exit 0]
        "#]],
    );
}

#[test]
fn if_with_aggregate_value_and_struct_assignment_reading_the_old_value() {
    // fn pick(c: bool, a: P, b: P) -> P { if c { a } else { P { x: b.y, y: b.x } } }
    // let mut s = P { x: 1, y: 2 };
    // s = P { x: 10, y: s.x };                 // reads the old s.x
    // let t = pick(false, s, s);
    // let mut arr = [s, t];
    // arr[{ arr[0].x = 5; 1 }] = arr[0];       // the value is read before the index runs
    // println!("{} {} {} {} {} {}", s.x, s.y, t.x, t.y, arr[1].x, arr[0].x);
    let mut env = FakeEnv::default();
    let p = env.strukt("P", &[("x", I32), ("y", I32)]);
    let pick = env.declare(
        "pick",
        &[Ty::Bool, Ty::Struct(p), Ty::Struct(p)],
        Ty::Struct(p),
    );
    {
        let mut t = Tb::default();
        let c = t.param("c", Ty::Bool);
        let a = t.param("a", Ty::Struct(p));
        let b = t.param("b", Ty::Struct(p));
        let (ec, ea) = (t.get(c), t.get(a));
        let then_b = t.block(vec![], Some(ea));
        let eb = t.get(b);
        let by = t.field(&env, eb, "y");
        let eb = t.get(b);
        let bx = t.field(&env, eb, "x");
        let lit = t.lit(&env, p, &[("x", by), ("y", bx)]);
        let else_b = t.block(vec![], Some(lit));
        let ife = t.if_(ec, then_b, Some(else_b));
        let body = t.block(vec![], Some(ife));
        env.define(pick, t, body);
    }
    env.main(|t, env| {
        let s = t.local("s", Ty::Struct(p));
        let tl = t.local("t", Ty::Struct(p));
        let ar = t.local("arr", arr(Ty::Struct(p), 2));
        let (one, two) = (t.i32(1), t.i32(2));
        let init = t.lit(env, p, &[("x", one), ("y", two)]);
        let es = t.get(s);
        let sx = t.field(env, es, "x");
        let ten = t.i32(10);
        let lit = t.lit(env, p, &[("x", ten), ("y", sx)]);
        let es = t.get(s);
        let s1 = t.assign(es, lit);
        let (f, es, es2) = (t.bool(false), t.get(s), t.get(s));
        let call = t.call(env, pick, vec![f, es, es2]);
        let (es, et) = (t.get(s), t.get(tl));
        let arr_init = t.array(vec![es, et]);
        let (ea, z, five) = (t.get(ar), t.usize(0), t.i32(5));
        let a0 = t.index(ea, z);
        let a0x = t.field(env, a0, "x");
        let asg = t.assign(a0x, five);
        let one = t.usize(1);
        let idx = t.block(vec![stmt(asg)], Some(one));
        let ea = t.get(ar);
        let place = t.index(ea, idx);
        let (ea, z) = (t.get(ar), t.usize(0));
        let value = t.index(ea, z);
        let s2 = t.assign(place, value);
        let fld = |t: &mut Tb, e: TExprId, f| t.field(env, e, f);
        let args = vec![
            {
                let e = t.get(s);
                fld(t, e, "x")
            },
            {
                let e = t.get(s);
                fld(t, e, "y")
            },
            {
                let e = t.get(tl);
                fld(t, e, "x")
            },
            {
                let e = t.get(tl);
                fld(t, e, "y")
            },
            {
                let (e, i) = (t.get(ar), t.usize(1));
                let e = t.index(e, i);
                fld(t, e, "x")
            },
            {
                let (e, i) = (t.get(ar), t.usize(0));
                let e = t.index(e, i);
                fld(t, e, "x")
            },
        ];
        let pr = t.println("{} {} {} {} {} {}", args);
        vec![
            let_(s, init),
            stmt(s1),
            let_(tl, call),
            let_(ar, arr_init),
            stmt(s2),
            stmt(pr),
        ]
    });
    check(
        &env,
        pick,
        expect![[r#"
            fn crate::pick(sret v0: ptr, v1: bool, v2: ptr, v3: ptr) {
            bb0:
                branch v1, bb1, bb2
            bb1:
                memcopy [v0], [v2], 8
                jump bb3
            bb2:
                v4 = load.i32 [v3+4]
                store.i32 [v0], v4
                v5 = load.i32 [v3]
                store.i32 [v0+4], v5
                jump bb3
            bb3:
                return
            }
        "#]],
    );
    check(
        &env,
        fn_def_id("main"),
        expect![[r#"
            fn crate::main() {
                slot0: size 8, align 4
                slot1: size 8, align 4
                slot2: size 8, align 4
                slot3: size 8, align 4
                slot4: size 8, align 4
                slot5: size 16, align 4
                slot6: size 8, align 4
                data0: " "
                data1: "\n"
            bb0:
                v0 = const.i32 1
                v1 = slot_addr slot0
                store.i32 [v1], v0
                v2 = const.i32 2
                store.i32 [v1+4], v2
                v3 = const.i32 10
                v4 = slot_addr slot1
                store.i32 [v4], v3
                v5 = load.i32 [v1]
                store.i32 [v4+4], v5
                memcopy [v1], [v4], 8
                v6 = const.bool false
                v7 = slot_addr slot3
                memcopy [v7], [v1], 8
                v8 = slot_addr slot4
                memcopy [v8], [v1], 8
                v9 = slot_addr slot2
                call crate::pick(v9, v6, v7, v8)
                v10 = slot_addr slot5
                memcopy [v10], [v1], 8
                v11 = const.u64 8
                v12 = elem_addr v10 + v11 * 1
                memcopy [v12], [v9], 8
                v13 = slot_addr slot6
                memcopy [v13], [v10], 8
                v14 = const.i32 5
                store.i32 [v10], v14
                v15 = const.u64 1
                v16 = const.u64 2
                v17 = lt.u64 v15, v16
                branch v17, bb1, bb2
            bb1:
                v18 = slot_addr slot5
                v19 = elem_addr v18 + v15 * 8
                v20 = slot_addr slot6
                memcopy [v19], [v20], 8
                v22 = slot_addr slot0
                v21 = load.i32 [v22]
                v23 = load.i32 [v22+4]
                v25 = slot_addr slot2
                v24 = load.i32 [v25]
                v26 = load.i32 [v25+4]
                v27 = load.i32 [v18+8]
                v28 = load.i32 [v18]
                print.i32 v21
                print.str data0 " "
                print.i32 v23
                print.str data0 " "
                print.i32 v24
                print.str data0 " "
                print.i32 v26
                print.str data0 " "
                print.i32 v27
                print.str data0 " "
                print.i32 v28
                print.str data1 "\n"
                return
            bb2:
                panic index_out_of_bounds v15, len 2
            }
        "#]],
    );
    check_run(
        &env,
        expect![[r#"
            10 1 1 10 10 5
            [exit 0]
        "#]],
    );
}

#[test]
fn lowering_is_deterministic() {
    let mut env = FakeEnv::default();
    let f = traced(&mut env, "f", USIZE);
    let g = traced(&mut env, "g", I32);
    let _ = (f, g);
    let first: Vec<IrFunction> = env
        .program()
        .functions
        .iter()
        .map(|f| (**f).clone())
        .collect();
    for _ in 0..3 {
        let again: Vec<IrFunction> = env
            .program()
            .functions
            .iter()
            .map(|f| (**f).clone())
            .collect();
        assert_eq!(first, again);
    }
}

#[test]
fn break_in_a_while_condition_leaves_that_loop() {
    // let mut i = 0;
    // 'a: while { if i == 3 { break 'a; } i < 10 } { i += 1; }
    // println!("{}", i);
    let mut env = FakeEnv::default();
    env.main(|t, _| {
        let i = t.local("i", I32);
        let z = t.i32(0);
        let wh = t.x(TExprKind::Unit, Ty::Unit);
        let (ei, three) = (t.get(i), t.i32(3));
        let c = t.bin(BinOp::Eq, ei, three);
        let b = t.brk(wh, None);
        let b = t.never_block(vec![stmt(b)]);
        let ifb = t.if_(c, b, None);
        let (ei, ten) = (t.get(i), t.i32(10));
        let lt = t.bin(BinOp::Lt, ei, ten);
        let cond = t.block(vec![stmt(ifb)], Some(lt));
        let (ei, one) = (t.get(i), t.i32(1));
        let inc = t.assign_op(BinOp::Add, ei, one);
        let body = t.block(vec![stmt(inc)], None);
        t.exprs[wh.0 as usize].kind = TExprKind::While { cond, body };
        let ei = t.get(i);
        let p = t.println("{}", vec![ei]);
        vec![let_(i, z), stmt(wh), stmt(p)]
    });
    check_run(
        &env,
        expect![[r#"
            3
            [exit 0]
        "#]],
    );
}

#[test]
fn deep_nesting_within_the_limits_lowers_on_a_test_thread() {
    // fn f(c: bool) -> i32 { if c { { -(if c { … } else { 1 }) } } else { 0 } }, nested
    // four times deeper than the nesting limit, and a 100 000-term sum.
    let mut env = FakeEnv::default();
    let f = env.declare("f", &[Ty::Bool], I32);
    let mut t = Tb::default();
    let c = t.param("c", Ty::Bool);
    let mut e = t.i32(1);
    for _ in 0..4 * crate::limits::MAX_NESTING {
        let neg = t.unary(UnOp::Neg, e);
        let blk = t.block(vec![], Some(neg));
        let (ec, zero) = (t.get(c), t.i32(0));
        e = t.if_(ec, blk, Some(zero));
    }
    let mut sum = e;
    for k in 0..100_000 {
        let term = t.i32(k % 7);
        sum = t.bin(BinOp::Add, sum, term);
    }
    let body = t.block(vec![], Some(sum));
    env.define(f, t, body);
    let ir = env.lower(f);
    assert!(ir.blocks.len() > 4 * crate::limits::MAX_NESTING as usize);
}

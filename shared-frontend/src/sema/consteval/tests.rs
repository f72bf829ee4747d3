//! Tests of constant evaluation on hand-built typed trees.
//!
//! [`Tb`] builds a THIR and, alongside, the Rust text it stands for, so that every
//! expression gets the span of its text and diagnostics render as rustc renders them.
//! [`TestEnv`] plays the driver: it holds structs and other constants, and evaluates a
//! constant on demand with [`eval_const_item`] (detecting cycles), so `ConstRef` chains go
//! through the real evaluator. Bless snapshots with `UPDATE_EXPECT=1`.

use std::cell::RefCell;
use std::sync::Arc;

use expect_test::{expect, Expect};
use rustc_hash::FxHashMap;

use super::*;
use crate::intern::Symbol;
use crate::sema::def::{DefKind, DefPath, DefPathSegment, Namespace, Res, Vis};
use crate::sema::env::ErrorReported;
use crate::sema::thir::{CastFrom, ListRange, Local, TLists};
use crate::sema::ty::{FieldTy, FnSig, IntTy, StructFields};
use crate::span::{SourceFile, SourceMap};
use crate::syntax::ast::PathRef;

use IntTy::{Usize, I32, I64, U64};

// ---- the environment ----

struct ConstItem {
    name: String,
    thir: Thir,
}

#[derive(Default)]
struct TestEnv {
    structs: FxHashMap<DefId, (String, Arc<StructFields>)>,
    consts: FxHashMap<DefId, ConstItem>,
    /// Values already computed (or failed), as a driver's cache.
    values: RefCell<FxHashMap<DefId, Result<Arc<ConstValue>, ErrorReported>>>,
    /// Constants being evaluated, to detect cycles.
    active: RefCell<Vec<DefId>>,
    /// What the environment reported while evaluating other constants.
    reported: RefCell<Vec<String>>,
}

fn def_id(name: &str) -> DefId {
    DefPath::root()
        .child(DefPathSegment {
            ns: Namespace::Value,
            name: Symbol::intern(name),
            disambiguator: 0,
        })
        .hash()
}

fn struct_id(name: &str) -> DefId {
    DefPath::root()
        .child(DefPathSegment {
            ns: Namespace::Type,
            name: Symbol::intern(name),
            disambiguator: 0,
        })
        .hash()
}

impl TestEnv {
    fn add_struct(&mut self, name: &str, fields: &[(&str, Ty)]) -> DefId {
        let def = struct_id(name);
        let fields = fields
            .iter()
            .map(|(n, ty)| FieldTy {
                name: Symbol::intern(n),
                ty: ty.clone(),
                vis: Vis::Public,
            })
            .collect();
        self.structs
            .insert(def, (name.to_string(), Arc::new(StructFields { fields })));
        def
    }

    fn add_const(&mut self, name: &str, thir: Thir) -> DefId {
        let def = def_id(name);
        self.consts.insert(
            def,
            ConstItem {
                name: name.to_string(),
                thir,
            },
        );
        def
    }

    fn fields(&self, def: DefId) -> &StructFields {
        &self.structs[&def].1
    }
}

impl SemaEnv for TestEnv {
    fn resolve_path(&self, _: DefId, _: PathRef<'_>, _: Namespace) -> Result<Res, Diagnostic> {
        Err(Diagnostic::error_no_span(
            "paths are not resolved in these tests",
        ))
    }
    fn is_accessible(&self, _: Vis, _: DefId) -> bool {
        true
    }
    fn visibility(&self, _: DefId) -> Vis {
        Vis::Public
    }
    fn def_kind(&self, def: DefId) -> DefKind {
        if self.structs.contains_key(&def) {
            DefKind::Struct
        } else {
            DefKind::Const
        }
    }
    fn def_name(&self, def: DefId) -> String {
        if let Some((name, _)) = self.structs.get(&def) {
            return name.clone();
        }
        match self.consts.get(&def) {
            Some(c) => c.name.clone(),
            None => "X".to_string(),
        }
    }
    fn fn_sig(&self, _: DefId) -> Result<Arc<FnSig>, ErrorReported> {
        Err(ErrorReported)
    }
    fn struct_fields(&self, def: DefId) -> Result<Arc<StructFields>, ErrorReported> {
        self.structs
            .get(&def)
            .map(|(_, f)| f.clone())
            .ok_or(ErrorReported)
    }
    fn alias_ty(&self, _: DefId) -> Result<Ty, ErrorReported> {
        Err(ErrorReported)
    }
    fn const_ty(&self, def: DefId) -> Result<Ty, ErrorReported> {
        self.consts
            .get(&def)
            .map(|c| c.thir.ret.clone())
            .ok_or(ErrorReported)
    }
    fn const_value(&self, def: DefId) -> Result<Arc<ConstValue>, ErrorReported> {
        if let Some(v) = self.values.borrow().get(&def) {
            return v.clone();
        }
        let item = self.consts.get(&def).ok_or(ErrorReported)?;
        if self.active.borrow().contains(&def) {
            self.reported
                .borrow_mut()
                .push(format!("{}: cycle detected (E0391)", item.name));
            return Err(ErrorReported);
        }
        self.active.borrow_mut().push(def);
        let result = eval_const_item(self, def, &item.thir);
        self.active.borrow_mut().pop();
        let value = match result {
            Ok(v) => Ok(Arc::new(v)),
            Err(ConstEvalError::Reported) => Err(ErrorReported),
            Err(ConstEvalError::Error(d)) => {
                self.reported
                    .borrow_mut()
                    .push(format!("{}: {}", item.name, d.message));
                Err(ErrorReported)
            }
        };
        self.values.borrow_mut().insert(def, value.clone());
        value
    }
}

// ---- the tree builder ----

/// A piece of an expression's text: literal text or a child expression.
enum P {
    S(String),
    E(TExprId),
}

fn s(text: &str) -> P {
    P::S(text.to_string())
}

/// Builds one tree.
type BuildFn = Box<dyn Fn(&Tb<'_>) -> TExprId>;

/// A statement for [`Tb::block`].
enum St {
    Let(LocalId, TExprId),
    LetWild(TExprId),
    Expr(TExprId),
}

#[derive(Default)]
struct TbInner {
    exprs: Vec<TExpr>,
    texts: Vec<String>,
    /// Children with their byte offset in the parent's text.
    kids: Vec<Vec<(TExprId, usize)>>,
    lists: TLists,
    locals: Vec<Local>,
}

/// Builds a THIR with `&self` methods (so calls nest: `b.bin(Add, b.i32(1), b.i32(2))`).
struct Tb<'e> {
    env: &'e TestEnv,
    inner: RefCell<TbInner>,
}

fn int_text(ty: IntTy, v: i128) -> String {
    if ty.is_signed() && v == ty.min_i128() {
        format!("{}::MIN", ty.name())
    } else if v == ty.max_i128() {
        format!("{}::MAX", ty.name())
    } else if ty == I32 {
        v.to_string()
    } else {
        format!("{v}{}", ty.name())
    }
}

/// Operators, whose compound operands the text puts in parentheses.
fn is_operator(kind: &TExprKind) -> bool {
    matches!(
        kind,
        TExprKind::Binary(..)
            | TExprKind::Unary(..)
            | TExprKind::LogicalAnd(..)
            | TExprKind::LogicalOr(..)
            | TExprKind::Cast { .. }
            | TExprKind::Field { .. }
            | TExprKind::Index { .. }
    )
}

fn is_compound(kind: &TExprKind) -> bool {
    matches!(
        kind,
        TExprKind::Binary(..)
            | TExprKind::LogicalAnd(..)
            | TExprKind::LogicalOr(..)
            | TExprKind::Cast { .. }
            | TExprKind::Assign { .. }
            | TExprKind::AssignOp { .. }
    )
}

impl<'e> Tb<'e> {
    fn new(env: &'e TestEnv) -> Tb<'e> {
        Tb {
            env,
            inner: RefCell::new(TbInner::default()),
        }
    }

    fn ty(&self, e: TExprId) -> Ty {
        let inner = self.inner.borrow();
        inner.lists.ty(inner.exprs[e.0 as usize].ty).clone()
    }

    /// An expression list of the tree.
    fn list(&self, items: &[TExprId]) -> ListRange {
        self.inner.borrow_mut().lists.push_exprs(items)
    }
    /// An item named by a node of the tree.
    fn def(&self, def: DefId) -> DefIdx {
        self.inner.borrow_mut().lists.push_def(def)
    }
    /// A field list of the tree.
    fn field_list(&self, items: &[(u32, TExprId)]) -> ListRange {
        self.inner.borrow_mut().lists.push_fields(items)
    }
    /// A statement list of the tree.
    fn stmt_list(&self, items: &[TStmt]) -> ListRange {
        self.inner.borrow_mut().lists.push_stmts(items)
    }

    /// Adds (or, for a reserved id, fills in) an expression made of `parts`.
    fn put(&self, id: Option<TExprId>, kind: TExprKind, ty: Ty, parts: Vec<P>) -> TExprId {
        let mut inner = self.inner.borrow_mut();
        let mut text = String::new();
        let mut kids = Vec::new();
        for part in parts {
            match part {
                P::S(t) => text.push_str(&t),
                P::E(child) => {
                    let wrap =
                        is_operator(&kind) && is_compound(&inner.exprs[child.0 as usize].kind);
                    if wrap {
                        text.push('(');
                    }
                    kids.push((child, text.len()));
                    text.push_str(&inner.texts[child.0 as usize]);
                    if wrap {
                        text.push(')');
                    }
                }
            }
        }
        let ty = inner.lists.push_ty(ty);
        let expr = TExpr {
            kind,
            ty,
            span: Span::DUMMY,
        };
        match id {
            Some(id) => {
                let i = id.0 as usize;
                inner.exprs[i] = expr;
                inner.texts[i] = text;
                inner.kids[i] = kids;
                id
            }
            None => {
                let id = TExprId(inner.exprs.len() as u32);
                inner.exprs.push(expr);
                inner.texts.push(text);
                inner.kids.push(kids);
                id
            }
        }
    }

    fn add(&self, kind: TExprKind, ty: Ty, parts: Vec<P>) -> TExprId {
        self.put(None, kind, ty, parts)
    }

    fn int(&self, ty: IntTy, v: i128) -> TExprId {
        self.add(
            TExprKind::Int((v as u64).into()),
            Ty::Int(ty),
            vec![P::S(int_text(ty, v))],
        )
    }
    fn i32(&self, v: i128) -> TExprId {
        self.int(I32, v)
    }
    fn i64(&self, v: i128) -> TExprId {
        self.int(I64, v)
    }
    fn u64(&self, v: i128) -> TExprId {
        self.int(U64, v)
    }
    fn usize(&self, v: i128) -> TExprId {
        self.int(Usize, v)
    }
    fn bool(&self, b: bool) -> TExprId {
        self.add(TExprKind::Bool(b), Ty::Bool, vec![s(&b.to_string())])
    }
    fn unit(&self) -> TExprId {
        self.add(TExprKind::Unit, Ty::Unit, vec![s("()")])
    }

    fn bin(&self, op: BinOp, l: TExprId, r: TExprId) -> TExprId {
        let ty = match op {
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => Ty::Bool,
            _ => self.ty(l),
        };
        let op_text = format!(" {} ", op.as_str());
        self.add(
            TExprKind::Binary(op, l, r),
            ty,
            vec![P::E(l), P::S(op_text), P::E(r)],
        )
    }
    fn neg(&self, x: TExprId) -> TExprId {
        self.add(
            TExprKind::Unary(UnOp::Neg, x),
            self.ty(x),
            vec![s("-"), P::E(x)],
        )
    }
    fn not(&self, x: TExprId) -> TExprId {
        self.add(
            TExprKind::Unary(UnOp::Not, x),
            self.ty(x),
            vec![s("!"), P::E(x)],
        )
    }
    fn and(&self, l: TExprId, r: TExprId) -> TExprId {
        self.add(
            TExprKind::LogicalAnd(l, r),
            Ty::Bool,
            vec![P::E(l), s(" && "), P::E(r)],
        )
    }
    fn or(&self, l: TExprId, r: TExprId) -> TExprId {
        self.add(
            TExprKind::LogicalOr(l, r),
            Ty::Bool,
            vec![P::E(l), s(" || "), P::E(r)],
        )
    }
    fn cast(&self, x: TExprId, to: IntTy) -> TExprId {
        let from = CastFrom::of(&self.ty(x)).expect("a scalar source");
        self.add(
            TExprKind::Cast {
                source: x,
                from,
                to,
            },
            Ty::Int(to),
            vec![P::E(x), P::S(format!(" as {}", to.name()))],
        )
    }

    fn local(&self, name: &str, ty: Ty, mutable: bool) -> LocalId {
        let mut inner = self.inner.borrow_mut();
        inner.locals.push(Local {
            name: Symbol::intern(name),
            ty,
            mutable,
            span: Span::DUMMY,
        });
        LocalId(inner.locals.len() as u32 - 1)
    }
    fn var(&self, l: LocalId) -> TExprId {
        let (name, ty) = {
            let inner = self.inner.borrow();
            let local = &inner.locals[l.0 as usize];
            (local.name.to_string(), local.ty.clone())
        };
        self.add(TExprKind::Local(l), ty, vec![P::S(name)])
    }
    fn cref(&self, def: DefId) -> TExprId {
        let item = &self.env.consts[&def];
        self.add(
            TExprKind::ConstRef(self.def(def)),
            item.thir.ret.clone(),
            vec![s(&item.name)],
        )
    }

    fn assign(&self, place: TExprId, value: TExprId) -> TExprId {
        self.add(
            TExprKind::Assign { place, value },
            Ty::Unit,
            vec![P::E(place), s(" = "), P::E(value)],
        )
    }
    fn assign_op(&self, op: BinOp, place: TExprId, value: TExprId) -> TExprId {
        let op_text = format!(" {}= ", op.as_str());
        self.add(
            TExprKind::AssignOp { op, place, value },
            Ty::Unit,
            vec![P::E(place), P::S(op_text), P::E(value)],
        )
    }

    fn field(&self, base: TExprId, name: &str) -> TExprId {
        let Ty::Struct(def) = self.ty(base) else {
            panic!("field of a non-struct")
        };
        let fields = self.env.fields(def);
        let index = fields
            .index_of(Symbol::intern(name))
            .expect("no such field");
        let ty = fields.fields[index].ty.clone();
        self.add(
            TExprKind::Field {
                base,
                index: index as u32,
            },
            ty,
            vec![P::E(base), P::S(format!(".{name}"))],
        )
    }
    fn index(&self, base: TExprId, i: TExprId) -> TExprId {
        let Ty::Array(elem, _) = self.ty(base) else {
            panic!("index of a non-array")
        };
        self.add(
            TExprKind::Index { base, index: i },
            Ty::clone(&elem),
            vec![P::E(base), s("["), P::E(i), s("]")],
        )
    }
    fn slit(&self, def: DefId, fields: &[(&str, TExprId)]) -> TExprId {
        let (name, decl) = &self.env.structs[&def];
        let mut parts = vec![P::S(format!("{name} {{ "))];
        let mut written = Vec::new();
        for (i, &(field, e)) in fields.iter().enumerate() {
            let index = decl.index_of(Symbol::intern(field)).expect("no such field");
            written.push((index as u32, e));
            if i > 0 {
                parts.push(s(", "));
            }
            parts.push(P::S(format!("{field}: ")));
            parts.push(P::E(e));
        }
        parts.push(s(" }"));
        self.add(
            TExprKind::StructLit {
                def: self.def(def),
                fields: self.field_list(&written),
            },
            Ty::Struct(def),
            parts,
        )
    }
    fn array(&self, elem: Ty, elems: &[TExprId]) -> TExprId {
        let mut parts = vec![s("[")];
        for (i, &e) in elems.iter().enumerate() {
            if i > 0 {
                parts.push(s(", "));
            }
            parts.push(P::E(e));
        }
        parts.push(s("]"));
        self.add(
            TExprKind::Array(self.list(elems)),
            Ty::Array(Arc::new(elem), elems.len() as u64),
            parts,
        )
    }
    fn repeat(&self, value: TExprId, count: u64) -> TExprId {
        let elem = self.ty(value);
        self.add(
            TExprKind::Repeat {
                value,
                count: count.into(),
            },
            Ty::Array(Arc::new(elem), count),
            vec![s("["), P::E(value), P::S(format!("; {count}]"))],
        )
    }

    fn block(&self, stmts: Vec<St>, tail: Option<TExprId>) -> TExprId {
        let mut parts = vec![s("{ ")];
        let mut tstmts = Vec::new();
        for st in stmts {
            match st {
                St::Let(l, init) => {
                    let (name, mutable) = {
                        let inner = self.inner.borrow();
                        let local = &inner.locals[l.0 as usize];
                        (local.name.to_string(), local.mutable)
                    };
                    let m = if mutable { "mut " } else { "" };
                    parts.push(P::S(format!("let {m}{name} = ")));
                    parts.push(P::E(init));
                    parts.push(s("; "));
                    tstmts.push(TStmt::Let {
                        local: Some(l),
                        init,
                    });
                }
                St::LetWild(init) => {
                    parts.push(s("let _ = "));
                    parts.push(P::E(init));
                    parts.push(s("; "));
                    tstmts.push(TStmt::Let { local: None, init });
                }
                St::Expr(e) => {
                    parts.push(P::E(e));
                    let block_like = matches!(
                        self.inner.borrow().exprs[e.0 as usize].kind,
                        TExprKind::Block { .. }
                            | TExprKind::If { .. }
                            | TExprKind::Loop { .. }
                            | TExprKind::While { .. }
                    );
                    parts.push(s(if block_like { " " } else { "; " }));
                    tstmts.push(TStmt::Expr(e));
                }
            }
        }
        let ty = match tail {
            Some(t) => {
                parts.push(P::E(t));
                parts.push(s(" }"));
                self.ty(t)
            }
            None => {
                parts.push(s("}"));
                Ty::Unit
            }
        };
        self.add(
            TExprKind::Block {
                stmts: self.stmt_list(&tstmts),
                tail,
            },
            ty,
            parts,
        )
    }
    fn if_(&self, cond: TExprId, then: TExprId, els: Option<TExprId>) -> TExprId {
        let mut parts = vec![s("if "), P::E(cond), s(" "), P::E(then)];
        let ty = match els {
            Some(e) => {
                parts.push(s(" else "));
                parts.push(P::E(e));
                self.ty(then)
            }
            None => Ty::Unit,
        };
        self.add(
            TExprKind::If {
                cond,
                then_branch: then,
                else_branch: els,
            },
            ty,
            parts,
        )
    }

    /// An id for a loop whose body (built next) refers to it.
    fn reserve(&self) -> TExprId {
        self.add(TExprKind::Unit, Ty::Unit, vec![])
    }
    fn loop_(&self, id: TExprId, ty: Ty, body: TExprId) -> TExprId {
        self.put(
            Some(id),
            TExprKind::Loop { body },
            ty,
            vec![s("loop "), P::E(body)],
        )
    }
    fn while_(&self, id: TExprId, cond: TExprId, body: TExprId) -> TExprId {
        self.put(
            Some(id),
            TExprKind::While { cond, body },
            Ty::Unit,
            vec![s("while "), P::E(cond), s(" "), P::E(body)],
        )
    }
    fn brk(&self, target: TExprId, value: Option<TExprId>) -> TExprId {
        let mut parts = vec![s("break")];
        if let Some(v) = value {
            parts.push(s(" "));
            parts.push(P::E(v));
        }
        self.add(TExprKind::Break { target, value }, Ty::Never, parts)
    }
    fn cont(&self, target: TExprId) -> TExprId {
        self.add(
            TExprKind::Continue { target },
            Ty::Never,
            vec![s("continue")],
        )
    }
    fn never(&self, e: TExprId, ty: Ty) -> TExprId {
        self.add(TExprKind::NeverToAny(e), ty, vec![P::E(e)])
    }

    /// The finished tree with root `body` of type `ret`, and its text. Spans are offsets
    /// in that text.
    fn finish(self, body: TExprId, ret: Ty) -> (Thir, String) {
        let mut inner = self.inner.into_inner();
        let mut work = vec![(body, 0usize)];
        while let Some((e, at)) = work.pop() {
            let i = e.0 as usize;
            inner.exprs[i].span = Span::new(at as u32, (at + inner.texts[i].len()) as u32);
            for &(kid, offset) in &inner.kids[i] {
                work.push((kid, at + offset));
            }
        }
        let text = inner.texts[body.0 as usize].clone();
        let thir = Thir {
            exprs: inner.exprs,
            lists: inner.lists,
            locals: inner.locals,
            params: Vec::new(),
            body,
            ret,
        };
        (thir, text)
    }
}

fn ty_name(env: &TestEnv, ty: &Ty) -> String {
    DisplayTy {
        ty,
        struct_name: |d| env.def_name(d),
    }
    .to_string()
}

/// Evaluates `const X: <ty> = <body>;` and renders its value, or its diagnostic as rustc
/// renders it, followed by what the environment reported for other constants.
fn eval_to_string(env: &TestEnv, body: TExprId, b: Tb<'_>) -> String {
    let ret = b.ty(body);
    let (thir, text) = b.finish(body, ret.clone());
    let def = def_id("X");
    let result = eval_const_item(env, def, &thir);
    let mut out = match result {
        Ok(v) => const_to_string_with(&v, &|d| env.def_name(d)),
        Err(ConstEvalError::Reported) => "(error already reported)".to_string(),
        Err(ConstEvalError::Error(d)) => {
            let head = format!("const X: {} = ", ty_name(env, &ret));
            let mut sources = SourceMap::default();
            let file = sources.add(SourceFile::new(
                "x.rs".into(),
                Arc::from(format!("{head}{text};\n")),
            ));
            let d = d.anchor(file, head.len() as u32);
            crate::diag::render(&[d], &sources, false)
                .trim_end()
                .to_string()
        }
    };
    for r in env.reported.borrow().iter() {
        out.push_str(&format!("\nreported: {r}"));
    }
    out
}

fn check(env: &TestEnv, build: impl FnOnce(&Tb<'_>) -> TExprId, expect: Expect) {
    let b = Tb::new(env);
    let body = build(&b);
    expect.assert_eq(&eval_to_string(env, body, b));
}

fn check_plain(build: impl FnOnce(&Tb<'_>) -> TExprId, expect: Expect) {
    check(&TestEnv::default(), build, expect)
}

/// Evaluates a constant built by `build` and returns its value or diagnostic message.
fn eval_short(build: impl FnOnce(&Tb<'_>) -> TExprId) -> Result<ConstValue, String> {
    let env = TestEnv::default();
    let b = Tb::new(&env);
    let body = build(&b);
    let ret = b.ty(body);
    let (thir, _) = b.finish(body, ret);
    eval_const(&env, &thir).map_err(|e| match e {
        ConstEvalError::Reported => "(reported)".to_string(),
        ConstEvalError::Error(d) => d.message,
    })
}

use BinOp::*;

// ---- literals, operators and their errors ----

#[test]
fn literals() {
    check_plain(|b| b.i32(-7), expect!["-7"]);
    check_plain(|b| b.u64(u64::MAX as i128), expect!["18446744073709551615"]);
    check_plain(|b| b.bool(true), expect!["true"]);
    check_plain(|b| b.unit(), expect!["()"]);
}

#[test]
fn overflow_is_an_error() {
    check_plain(
        |b| b.bin(Add, b.i32(i32::MAX as i128), b.i32(1)),
        expect![[r#"
            error[E0080]: attempt to compute `i32::MAX + 1_i32`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i32 = i32::MAX + 1;
              |                ^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Sub, b.u64(0), b.u64(1)),
        expect![[r#"
            error[E0080]: attempt to compute `0_u64 - 1_u64`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: u64 = 0u64 - 1u64;
              |                ^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Mul, b.usize(u64::MAX as i128), b.usize(2)),
        expect![[r#"
            error[E0080]: attempt to compute `usize::MAX * 2_usize`, which would overflow
             --> x.rs:1:18
              |
            1 | const X: usize = usize::MAX * 2usize;
              |                  ^^^^^^^^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Sub, b.i64(i64::MIN as i128 + 1), b.i64(2)),
        expect![[r#"
            error[E0080]: attempt to compute `-9223372036854775807_i64 - 2_i64`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i64 = -9223372036854775807i64 - 2i64;
              |                ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
}

#[test]
fn division_errors() {
    check_plain(
        |b| b.bin(Div, b.i32(1), b.i32(0)),
        expect![[r#"
            error[E0080]: attempt to divide `1_i32` by zero
             --> x.rs:1:16
              |
            1 | const X: i32 = 1 / 0;
              |                ^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Rem, b.u64(u64::MAX as i128), b.u64(0)),
        expect![[r#"
            error[E0080]: attempt to calculate the remainder of `u64::MAX` with a divisor of zero
             --> x.rs:1:16
              |
            1 | const X: u64 = u64::MAX % 0u64;
              |                ^^^^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Div, b.i32(i32::MIN as i128), b.i32(-1)),
        expect![[r#"
            error[E0080]: attempt to compute `i32::MIN / -1_i32`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i32 = i32::MIN / -1;
              |                ^^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Rem, b.i64(i64::MIN as i128), b.i64(-1)),
        expect![[r#"
            error[E0080]: attempt to compute `i64::MIN % -1_i64`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i64 = i64::MIN % -1i64;
              |                ^^^^^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    // Truncation toward zero; the remainder takes the dividend's sign.
    check_plain(
        |b| {
            b.array(
                Ty::Int(I32),
                &[
                    b.bin(Div, b.i32(-7), b.i32(2)),
                    b.bin(Rem, b.i32(-7), b.i32(2)),
                    b.bin(Div, b.i32(7), b.i32(-2)),
                    b.bin(Rem, b.i32(7), b.i32(-2)),
                    b.bin(Rem, b.i32(i32::MIN as i128), b.i32(1)),
                ],
            )
        },
        expect!["[-3, -1, -3, 1, 0]"],
    );
}

#[test]
fn negation() {
    check_plain(
        |b| b.neg(b.i32(i32::MIN as i128)),
        expect![[r#"
            error[E0080]: attempt to negate `i32::MIN`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i32 = -i32::MIN;
              |                ^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| {
            b.array(
                Ty::Int(I64),
                &[
                    b.neg(b.i64(i64::MAX as i128)),
                    b.neg(b.i64(0)),
                    b.not(b.i64(0)),
                ],
            )
        },
        expect!["[-9223372036854775807, 0, -1]"],
    );
    check_plain(
        |b| {
            b.array(
                Ty::Int(U64),
                &[b.not(b.u64(0)), b.not(b.u64(u64::MAX as i128 - 5))],
            )
        },
        expect!["[18446744073709551615, 5]"],
    );
    check_plain(|b| b.not(b.i32(5)), expect!["-6"]);
    check_plain(|b| b.not(b.bool(false)), expect!["true"]);
}

#[test]
fn shifts_at_the_boundaries() {
    check_plain(
        |b| b.bin(Shl, b.i32(1), b.i32(32)),
        expect![[r#"
            error[E0080]: attempt to shift left by `32_i32`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i32 = 1 << 32;
              |                ^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Shl, b.u64(1), b.i32(64)),
        expect![[r#"
            error[E0080]: attempt to shift left by `64_i32`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: u64 = 1u64 << 64;
              |                ^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Shr, b.i32(1), b.i64(-1)),
        expect![[r#"
            error[E0080]: attempt to shift right by `-1_i64`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i32 = 1 >> -1i64;
              |                ^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Shl, b.i64(1), b.u64(u64::MAX as i128)),
        expect![[r#"
            error[E0080]: attempt to shift left by `u64::MAX`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i64 = 1i64 << u64::MAX;
              |                ^^^^^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.bin(Shl, b.i32(1), b.i32(i32::MIN as i128)),
        expect![[r#"
            error[E0080]: attempt to shift left by `i32::MIN`, which would overflow
             --> x.rs:1:16
              |
            1 | const X: i32 = 1 << i32::MIN;
              |                ^^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    // The largest allowed amounts; shifting bits out is not an overflow.
    check_plain(
        |b| {
            b.array(
                Ty::Int(I32),
                &[
                    b.bin(Shl, b.i32(1), b.i32(31)),
                    b.bin(Shl, b.i32(3), b.u64(31)),
                    b.bin(Shr, b.i32(i32::MIN as i128), b.usize(31)),
                    b.bin(Shr, b.i32(-16), b.i64(2)),
                    b.bin(Shl, b.i32(-1), b.i32(0)),
                ],
            )
        },
        expect!["[-2147483648, -2147483648, -1, -4, -1]"],
    );
    check_plain(
        |b| {
            b.array(
                Ty::Int(U64),
                &[
                    b.bin(Shl, b.u64(1), b.i32(63)),
                    b.bin(Shr, b.u64(u64::MAX as i128), b.i32(63)),
                    b.bin(Shl, b.u64(u64::MAX as i128), b.u64(4)),
                ],
            )
        },
        expect!["[9223372036854775808, 1, 18446744073709551600]"],
    );
}

#[test]
fn comparisons_and_bool_operators() {
    check_plain(
        |b| {
            b.array(
                Ty::Bool,
                &[
                    b.bin(Lt, b.i32(-1), b.i32(0)),
                    b.bin(Lt, b.u64(u64::MAX as i128), b.u64(0)),
                    b.bin(Ge, b.i64(i64::MIN as i128), b.i64(i64::MAX as i128)),
                    b.bin(Eq, b.usize(3), b.usize(3)),
                    b.bin(Ne, b.usize(3), b.usize(3)),
                    b.bin(Lt, b.bool(false), b.bool(true)),
                    b.bin(Gt, b.bool(false), b.bool(true)),
                    b.bin(Le, b.bool(true), b.bool(true)),
                    b.bin(BitXor, b.bool(true), b.bool(true)),
                    b.bin(BitOr, b.bool(false), b.bool(true)),
                    b.bin(BitAnd, b.bool(false), b.bool(true)),
                ],
            )
        },
        expect!["[true, false, false, true, false, true, false, true, false, true, false]"],
    );
}

#[test]
fn logical_operators_short_circuit() {
    // `false && 1 / 0 == 0` never divides; `true || ...` neither.
    check_plain(
        |b| {
            let div = b.bin(Eq, b.bin(Div, b.i32(1), b.i32(0)), b.i32(0));
            let div2 = b.bin(Eq, b.bin(Div, b.i32(1), b.i32(0)), b.i32(0));
            b.array(
                Ty::Bool,
                &[
                    b.and(b.bool(false), div),
                    b.or(b.bool(true), div2),
                    b.and(b.bool(true), b.bool(false)),
                    b.or(b.bool(false), b.bool(true)),
                ],
            )
        },
        expect!["[false, true, false, true]"],
    );
    check_plain(
        |b| {
            b.and(
                b.bool(true),
                b.bin(Eq, b.bin(Div, b.i32(1), b.i32(0)), b.i32(0)),
            )
        },
        expect![[r#"
            error[E0080]: attempt to divide `1_i32` by zero
             --> x.rs:1:27
              |
            1 | const X: bool = true && ((1 / 0) == 0);
              |                           ^^^^^ evaluation of `X` failed here
              |"#]],
    );
}

#[test]
fn casts_wrap() {
    check_plain(
        |b| {
            b.array(
                Ty::Int(I32),
                &[
                    b.cast(b.i64(3_000_000_000), I32),
                    b.cast(b.u64(u64::MAX as i128), I32),
                    b.cast(b.i32(-1), I32),
                    b.cast(b.bool(true), I32),
                    b.cast(b.usize(1 << 32), I32),
                ],
            )
        },
        expect!["[-1294967296, -1, -1, 1, 0]"],
    );
    check_plain(
        |b| {
            b.array(
                Ty::Int(U64),
                &[
                    b.cast(b.i32(-1), U64),
                    b.cast(b.i64(i64::MIN as i128), U64),
                    b.cast(b.bool(false), U64),
                    b.cast(b.usize(7), U64),
                ],
            )
        },
        expect!["[18446744073709551615, 9223372036854775808, 0, 7]"],
    );
    check_plain(
        |b| {
            b.array(
                Ty::Int(I64),
                &[
                    b.cast(b.i32(i32::MIN as i128), I64),
                    b.cast(b.u64(u64::MAX as i128), I64),
                    b.cast(b.usize(1 << 63), I64),
                ],
            )
        },
        expect!["[-2147483648, -1, -9223372036854775808]"],
    );
    check_plain(
        |b| b.cast(b.i32(-2), Usize),
        expect!["18446744073709551614"],
    );
}

/// Every binary operator on every integer type, on edge values, against Rust's own
/// checked arithmetic.
#[test]
fn integer_operators_match_rust() {
    fn values(ty: IntTy) -> Vec<i128> {
        let (min, max) = (ty.min_i128(), ty.max_i128());
        let mut v = vec![0, 1, 2, 3, 7, 31, 32, 63, 64, max, max - 1, max / 2 + 1];
        if ty.is_signed() {
            v.extend([-1, -2, -7, -32, min, min + 1, min / 2]);
        }
        v.retain(|&x| min <= x && x <= max);
        v
    }
    /// Rust's checked result, at the width of `ty`.
    fn oracle(op: BinOp, ty: IntTy, a: i128, b: i128) -> Option<i128> {
        macro_rules! by_type {
            ($t:ty) => {{
                let (x, y) = (a as $t, b as $t);
                match op {
                    Add => x.checked_add(y).map(|v| v as i128),
                    Sub => x.checked_sub(y).map(|v| v as i128),
                    Mul => x.checked_mul(y).map(|v| v as i128),
                    Div => x.checked_div(y).map(|v| v as i128),
                    Rem => x.checked_rem(y).map(|v| v as i128),
                    BitAnd => Some((x & y) as i128),
                    BitOr => Some((x | y) as i128),
                    BitXor => Some((x ^ y) as i128),
                    Eq => Some((x == y) as i128),
                    Ne => Some((x != y) as i128),
                    Lt => Some((x < y) as i128),
                    Le => Some((x <= y) as i128),
                    Gt => Some((x > y) as i128),
                    Ge => Some((x >= y) as i128),
                    Shl | Shr => {
                        if b < 0 || b >= <$t>::BITS as i128 {
                            None
                        } else if op == Shl {
                            Some(x.wrapping_shl(b as u32) as i128)
                        } else {
                            Some(x.wrapping_shr(b as u32) as i128)
                        }
                    }
                    And | Or => unreachable!(),
                }
            }};
        }
        match ty {
            I32 => by_type!(i32),
            I64 => by_type!(i64),
            U64 | Usize => by_type!(u64),
        }
    }
    let ops = [
        Add, Sub, Mul, Div, Rem, BitAnd, BitOr, BitXor, Shl, Shr, Eq, Ne, Lt, Le, Gt, Ge,
    ];
    let mut checked = 0;
    for ty in IntTy::ALL {
        for op in ops {
            for &a in &values(ty) {
                for &bv in &values(ty) {
                    let got = eval_short(|b| b.bin(op, b.int(ty, a), b.int(ty, bv)));
                    let want = oracle(op, ty, a, bv);
                    match (got, want) {
                        (Ok(ConstValue::Int(t, bits)), Some(w)) => {
                            assert_eq!(t, ty);
                            assert_eq!(ty.to_i128(bits), w, "{a} {op:?} {bv} at {ty:?}");
                            assert_eq!(ty.normalize(bits), bits);
                        }
                        (Ok(ConstValue::Bool(x)), Some(w)) => {
                            assert_eq!(x as i128, w, "{a} {op:?} {bv} at {ty:?}")
                        }
                        (Err(msg), None) => assert!(
                            msg.starts_with("attempt to"),
                            "{a} {op:?} {bv} at {ty:?}: {msg}"
                        ),
                        (got, want) => {
                            panic!("{a} {op:?} {bv} at {ty:?}: got {got:?}, want {want:?}")
                        }
                    }
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 5000, "{checked}");
}

/// Shift amounts of every type against a left operand of every type.
#[test]
fn shift_amount_types() {
    for lhs in IntTy::ALL {
        for rhs in IntTy::ALL {
            let bits = lhs.bits() as i128;
            let ok = eval_short(|b| b.bin(Shl, b.int(lhs, 1), b.int(rhs, bits - 1)));
            assert_eq!(
                ok.map(|v| match v {
                    ConstValue::Int(_, x) => lhs.to_i128(x),
                    _ => 0,
                }),
                Ok(if lhs.is_signed() {
                    lhs.min_i128()
                } else {
                    1 << (bits - 1)
                })
            );
            let err = eval_short(|b| b.bin(Shr, b.int(lhs, 1), b.int(rhs, bits)));
            assert_eq!(
                err,
                Err(format!(
                    "attempt to shift right by `{bits}_{}`, which would overflow",
                    rhs.name()
                ))
            );
        }
    }
}

// ---- variables, assignments, control flow ----

#[test]
fn compound_assignment() {
    check_plain(
        |b| {
            let x = b.local("x", Ty::Int(I32), true);
            b.block(
                vec![
                    St::Let(x, b.i32(i32::MAX as i128)),
                    St::Expr(b.assign_op(Add, b.var(x), b.i32(1))),
                ],
                Some(b.var(x)),
            )
        },
        expect![[r#"
            error[E0080]: attempt to compute `i32::MAX + 1_i32`, which would overflow
             --> x.rs:1:40
              |
            1 | const X: i32 = { let mut x = i32::MAX; x += 1; x };
              |                                        ^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| {
            let x = b.local("x", Ty::Int(U64), true);
            b.block(
                vec![
                    St::Let(x, b.u64(5)),
                    St::Expr(b.assign_op(Div, b.var(x), b.u64(0))),
                ],
                Some(b.var(x)),
            )
        },
        expect![[r#"
            error[E0080]: attempt to divide `5_u64` by zero
             --> x.rs:1:36
              |
            1 | const X: u64 = { let mut x = 5u64; x /= 0u64; x };
              |                                    ^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| {
            let x = b.local("x", Ty::Int(I64), true);
            b.block(
                vec![
                    St::Let(x, b.i64(5)),
                    St::Expr(b.assign_op(Shl, b.var(x), b.i32(64))),
                ],
                Some(b.var(x)),
            )
        },
        expect![[r#"
            error[E0080]: attempt to shift left by `64_i32`, which would overflow
             --> x.rs:1:36
              |
            1 | const X: i64 = { let mut x = 5i64; x <<= 64; x };
              |                                    ^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    // Every compound operator once: ((((((((((7+5)-2)*3)/4)%5)&6)|8)^3)<<2)>>1).
    check_plain(
        |b| {
            let x = b.local("x", Ty::Int(I32), true);
            let mut stmts = vec![St::Let(x, b.i32(7))];
            for (op, v) in [
                (Add, 5),
                (Sub, 2),
                (Mul, 3),
                (Div, 4),
                (Rem, 5),
                (BitAnd, 6),
                (BitOr, 8),
                (BitXor, 3),
                (Shl, 2),
                (Shr, 1),
            ] {
                stmts.push(St::Expr(b.assign_op(op, b.var(x), b.i32(v))));
            }
            b.block(stmts, Some(b.var(x)))
        },
        expect!["18"],
    );
    // Bool compound assignment.
    check_plain(
        |b| {
            let x = b.local("x", Ty::Bool, true);
            b.block(
                vec![
                    St::Let(x, b.bool(true)),
                    St::Expr(b.assign_op(BitAnd, b.var(x), b.bool(true))),
                    St::Expr(b.assign_op(BitXor, b.var(x), b.bool(true))),
                    St::Expr(b.assign_op(BitOr, b.var(x), b.bool(false))),
                ],
                Some(b.var(x)),
            )
        },
        expect!["false"],
    );
}

#[test]
fn assignment_evaluates_the_value_first() {
    // `x += { x = 10; 1 }` reads x after the right-hand side: 11 (rustc agrees).
    check_plain(
        |b| {
            let x = b.local("x", Ty::Int(I32), true);
            let rhs = b.block(
                vec![St::Expr(b.assign(b.var(x), b.i32(10)))],
                Some(b.i32(1)),
            );
            b.block(
                vec![
                    St::Let(x, b.i32(1)),
                    St::Expr(b.assign_op(Add, b.var(x), rhs)),
                ],
                Some(b.var(x)),
            )
        },
        expect!["11"],
    );
    // `a[5] = 1 / 0` reports the division, not the index.
    check_plain(
        |b| {
            let a = b.local("a", Ty::Array(Arc::new(Ty::Int(I32)), 2), true);
            let place = b.index(b.var(a), b.usize(5));
            b.block(
                vec![
                    St::Let(a, b.array(Ty::Int(I32), &[b.i32(1), b.i32(2)])),
                    St::Expr(b.assign(place, b.bin(Div, b.i32(1), b.i32(0)))),
                ],
                Some(b.i32(0)),
            )
        },
        expect![[r#"
            error[E0080]: attempt to divide `1_i32` by zero
             --> x.rs:1:50
              |
            1 | const X: i32 = { let mut a = [1, 2]; a[5usize] = 1 / 0; 0 };
              |                                                  ^^^^^ evaluation of `X` failed here
              |"#]],
    );
    // `a[{ a = [7, 8]; 0 }] += { a = [5, 6]; 1 }`: the value's block runs first
    // (a = [5, 6]), then the index's (a = [7, 8]), then a[0] = 7 + 1.
    check_plain(
        |b| {
            let ty = Ty::Array(Arc::new(Ty::Int(I32)), 2);
            let a = b.local("a", ty, true);
            let idx = b.block(
                vec![St::Expr(b.assign(
                    b.var(a),
                    b.array(Ty::Int(I32), &[b.i32(7), b.i32(8)]),
                ))],
                Some(b.usize(0)),
            );
            let value = b.block(
                vec![St::Expr(b.assign(
                    b.var(a),
                    b.array(Ty::Int(I32), &[b.i32(5), b.i32(6)]),
                ))],
                Some(b.i32(1)),
            );
            let place = b.index(b.var(a), idx);
            b.block(
                vec![
                    St::Let(a, b.array(Ty::Int(I32), &[b.i32(1), b.i32(2)])),
                    St::Expr(b.assign_op(Add, place, value)),
                ],
                Some(b.var(a)),
            )
        },
        expect!["[8, 8]"],
    );
}

#[test]
fn reading_an_element_evaluates_the_index_first() {
    // `a[{ a = [5, 6]; 0 }]` is 5, as in rustc.
    check_plain(
        |b| {
            let a = b.local("a", Ty::Array(Arc::new(Ty::Int(I32)), 2), true);
            let idx = b.block(
                vec![St::Expr(b.assign(
                    b.var(a),
                    b.array(Ty::Int(I32), &[b.i32(5), b.i32(6)]),
                ))],
                Some(b.usize(0)),
            );
            b.block(
                vec![St::Let(a, b.array(Ty::Int(I32), &[b.i32(1), b.i32(2)]))],
                Some(b.index(b.var(a), idx)),
            )
        },
        expect!["5"],
    );
}

#[test]
fn shadowing_and_wildcard_let() {
    check_plain(
        |b| {
            let x1 = b.local("x", Ty::Int(I32), false);
            let x2 = b.local("x", Ty::Int(I64), false);
            let init2 = b.bin(Mul, b.cast(b.var(x1), I64), b.i64(1 << 40));
            b.block(
                vec![
                    St::Let(x1, b.i32(3)),
                    St::LetWild(b.bin(Add, b.i32(1), b.i32(1))),
                    St::Let(x2, init2),
                ],
                Some(b.var(x2)),
            )
        },
        expect!["3298534883328"],
    );
    // `let _ = e;` still evaluates `e`.
    check_plain(
        |b| {
            b.block(
                vec![St::LetWild(b.bin(Sub, b.usize(0), b.usize(1)))],
                Some(b.unit()),
            )
        },
        expect![[r#"
            error[E0080]: attempt to compute `0_usize - 1_usize`, which would overflow
             --> x.rs:1:25
              |
            1 | const X: () = { let _ = 0usize - 1usize; () };
              |                         ^^^^^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
}

#[test]
fn if_else() {
    check_plain(
        |b| {
            let x = b.local("x", Ty::Int(I32), false);
            let cond = b.bin(Gt, b.var(x), b.i32(3));
            let pick = b.if_(
                cond,
                b.block(vec![], Some(b.i32(10))),
                Some(b.block(vec![], Some(b.bin(Div, b.i32(1), b.i32(0))))),
            );
            b.block(vec![St::Let(x, b.i32(5))], Some(pick))
        },
        expect!["10"],
    );
    // An `if` without `else` whose condition is false does nothing.
    check_plain(
        |b| {
            let x = b.local("x", Ty::Int(I32), true);
            let set = b.if_(
                b.bool(false),
                b.block(vec![St::Expr(b.assign(b.var(x), b.i32(1)))], None),
                None,
            );
            b.block(vec![St::Let(x, b.i32(0)), St::Expr(set)], Some(b.var(x)))
        },
        expect!["0"],
    );
}

/// `let mut i = 0; let mut s = 0; while i < n { i += 1; s += i; } s`
fn sum_to(b: &Tb<'_>, n: i128) -> TExprId {
    let i = b.local("i", Ty::Int(I64), true);
    let acc = b.local("s", Ty::Int(I64), true);
    let w = b.reserve();
    let body = b.block(
        vec![
            St::Expr(b.assign_op(Add, b.var(i), b.i64(1))),
            St::Expr(b.assign_op(Add, b.var(acc), b.var(i))),
        ],
        None,
    );
    let cond = b.bin(Lt, b.var(i), b.i64(n));
    b.while_(w, cond, body);
    b.block(
        vec![St::Let(i, b.i64(0)), St::Let(acc, b.i64(0)), St::Expr(w)],
        Some(b.var(acc)),
    )
}

#[test]
fn while_loops() {
    check_plain(|b| sum_to(b, 100), expect!["5050"]);
    check_plain(|b| sum_to(b, 0), expect!["0"]);
}

#[test]
fn loop_with_break_value_and_continue() {
    // let mut i = 0; loop { i += 1; if i % 3 != 0 { continue; } if i > 10 { break i * 2; } }
    check_plain(
        |b| {
            let i = b.local("i", Ty::Int(I32), true);
            let l = b.reserve();
            let skip = b.if_(
                b.bin(Ne, b.bin(Rem, b.var(i), b.i32(3)), b.i32(0)),
                b.block(vec![St::Expr(b.cont(l))], None),
                None,
            );
            let stop = b.if_(
                b.bin(Gt, b.var(i), b.i32(10)),
                b.block(
                    vec![St::Expr(b.brk(l, Some(b.bin(Mul, b.var(i), b.i32(2)))))],
                    None,
                ),
                None,
            );
            let body = b.block(
                vec![
                    St::Expr(b.assign_op(Add, b.var(i), b.i32(1))),
                    St::Expr(skip),
                    St::Expr(stop),
                ],
                None,
            );
            b.loop_(l, Ty::Int(I32), body);
            b.block(vec![St::Let(i, b.i32(0))], Some(l))
        },
        expect!["24"],
    );
}

#[test]
fn labeled_break_out_of_nested_loops() {
    // 'outer: loop { loop { break 'outer [1, 2]; } }  — the inner loop has type `!`.
    check_plain(
        |b| {
            let arr = Ty::Array(Arc::new(Ty::Int(U64)), 2);
            let outer = b.reserve();
            let inner = b.reserve();
            let value = b.array(Ty::Int(U64), &[b.u64(1), b.u64(2)]);
            let inner_body = b.block(vec![St::Expr(b.brk(outer, Some(value)))], None);
            b.loop_(inner, Ty::Never, inner_body);
            let outer_body = b.block(vec![St::Expr(inner)], None);
            b.loop_(outer, arr, outer_body);
            // Operands pending below the loop must survive the unwinding.
            b.array(
                Ty::Array(Arc::new(Ty::Int(U64)), 2),
                &[b.repeat(b.u64(9), 2), outer],
            )
        },
        expect!["[[9, 9], [1, 2]]"],
    );
    // `continue 'outer` from an inner `while`.
    check_plain(
        |b| {
            let i = b.local("i", Ty::Int(I32), true);
            let n = b.local("n", Ty::Int(I32), true);
            let outer = b.reserve();
            let inner = b.reserve();
            let inner_body = b.block(
                vec![
                    St::Expr(b.assign_op(Add, b.var(n), b.i32(1))),
                    St::Expr(b.cont(outer)),
                ],
                None,
            );
            b.while_(inner, b.bool(true), inner_body);
            let outer_body = b.block(
                vec![
                    St::Expr(b.assign_op(Add, b.var(i), b.i32(1))),
                    St::Expr(inner),
                ],
                None,
            );
            b.while_(outer, b.bin(Lt, b.var(i), b.i32(5)), outer_body);
            b.block(
                vec![St::Let(i, b.i32(0)), St::Let(n, b.i32(0)), St::Expr(outer)],
                Some(b.bin(Add, b.bin(Mul, b.var(i), b.i32(100)), b.var(n))),
            )
        },
        expect!["505"],
    );
}

#[test]
fn step_limit() {
    // rustc: a `while` of 1 999 999 iterations is fine, 2 000 000 hit
    // `long_running_const_eval`.
    let value = eval_short(|b| sum_to(b, 1_999_999));
    assert_eq!(value, Ok(ConstValue::Int(I64, 1_999_999 * 2_000_000 / 2)));
    check_plain(
        |b| sum_to(b, 2_000_000),
        expect![[r#"
            error: constant evaluation is taking a long time
             --> x.rs:1:54
              |
            1 | const X: i64 = { let mut i = 0i64; let mut s = 0i64; while i < 2000000i64 { i += 1i64; s += i; } s };
              |                                                      ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
              |
              = note: Rill stops a constant's evaluation after 2000000 loop iterations (implementation limit `MAX_CONST_EVAL_STEPS`), as rustc's `long_running_const_eval` lint does"#]],
    );
    // `loop {}` stops too.
    check_plain(
        |b| {
            let l = b.reserve();
            b.loop_(l, Ty::Never, b.block(vec![], None));
            b.never(l, Ty::Int(I32))
        },
        expect![[r#"
            error: constant evaluation is taking a long time
             --> x.rs:1:16
              |
            1 | const X: i32 = loop { };
              |                ^^^^^^^^
              |
              = note: Rill stops a constant's evaluation after 2000000 loop iterations (implementation limit `MAX_CONST_EVAL_STEPS`), as rustc's `long_running_const_eval` lint does"#]],
    );
}

/// `let mut i = 0; let mut s = 0; while i < outer { i += 1; let mut j = 0;
/// while j < inner { j += 1; s += 1; } } s`
fn nested_count(b: &Tb<'_>, outer: i128, inner: i128) -> TExprId {
    let i = b.local("i", Ty::Int(U64), true);
    let j = b.local("j", Ty::Int(U64), true);
    let acc = b.local("s", Ty::Int(U64), true);
    let w_in = b.reserve();
    let body_in = b.block(
        vec![
            St::Expr(b.assign_op(Add, b.var(j), b.u64(1))),
            St::Expr(b.assign_op(Add, b.var(acc), b.u64(1))),
        ],
        None,
    );
    b.while_(w_in, b.bin(Lt, b.var(j), b.u64(inner)), body_in);
    let w_out = b.reserve();
    let body_out = b.block(
        vec![
            St::Expr(b.assign_op(Add, b.var(i), b.u64(1))),
            St::Let(j, b.u64(0)),
            St::Expr(w_in),
        ],
        None,
    );
    b.while_(w_out, b.bin(Lt, b.var(i), b.u64(outer)), body_out);
    b.block(
        vec![
            St::Let(i, b.u64(0)),
            St::Let(acc, b.u64(0)),
            St::Expr(w_out),
        ],
        Some(b.var(acc)),
    )
}

/// `let mut i = 0; loop { i += 1; if i == n { break; } } i`
fn loop_until(b: &Tb<'_>, n: i128) -> TExprId {
    let i = b.local("i", Ty::Int(U64), true);
    let l = b.reserve();
    let stop = b.if_(
        b.bin(Eq, b.var(i), b.u64(n)),
        b.block(vec![St::Expr(b.brk(l, None))], None),
        None,
    );
    let body = b.block(
        vec![
            St::Expr(b.assign_op(Add, b.var(i), b.u64(1))),
            St::Expr(stop),
        ],
        None,
    );
    b.loop_(l, Ty::Unit, body);
    b.block(vec![St::Let(i, b.u64(0)), St::Expr(l)], Some(b.var(i)))
}

#[test]
fn step_limit_counts_every_loop_iteration_as_rustc_does() {
    // Checked against rustc 1.95: every completed iteration (end of body or `continue`)
    // of every loop counts; the 2 000 000th is refused. A `loop` left by `break` on its
    // n-th iteration completed n - 1.
    let too_long = |r: Result<ConstValue, String>| {
        r == Err("constant evaluation is taking a long time".to_string())
    };
    assert_eq!(
        eval_short(|b| nested_count(b, 1000, 1998)),
        Ok(ConstValue::Int(U64, 1_998_000))
    );
    assert!(too_long(eval_short(|b| nested_count(b, 1000, 1999))));
    assert_eq!(
        eval_short(|b| loop_until(b, 2_000_000)),
        Ok(ConstValue::Int(U64, 2_000_000))
    );
    assert!(too_long(eval_short(|b| loop_until(b, 2_000_001))));
}

// ---- arrays and structs ----

fn point_env() -> (TestEnv, DefId, DefId) {
    let mut env = TestEnv::default();
    let point = env.add_struct("Point", &[("x", Ty::Int(I32)), ("y", Ty::Int(I64))]);
    let shape = env.add_struct(
        "Shape",
        &[
            ("name", Ty::Int(U64)),
            ("corners", Ty::Array(Arc::new(Ty::Struct(point)), 3)),
            ("closed", Ty::Bool),
        ],
    );
    (env, point, shape)
}

#[test]
fn arrays_repeat_and_indexing() {
    check_plain(
        |b| {
            let a = b.local("a", Ty::Array(Arc::new(Ty::Int(I32)), 3), false);
            let i = b.local("i", Ty::Int(Usize), false);
            b.block(
                vec![
                    St::Let(a, b.array(Ty::Int(I32), &[b.i32(1), b.i32(2), b.i32(3)])),
                    St::Let(i, b.usize(5)),
                ],
                Some(b.index(b.var(a), b.var(i))),
            )
        },
        expect![[r#"
            error[E0080]: index out of bounds: the length is 3 but the index is 5
             --> x.rs:1:53
              |
            1 | const X: i32 = { let a = [1, 2, 3]; let i = 5usize; a[i] };
              |                                                     ^^^^ evaluation of `X` failed here
              |"#]],
    );
    // Indexing a temporary: the array is evaluated before the index.
    check_plain(
        |b| {
            let arr = b.array(Ty::Int(I64), &[b.i64(4), b.i64(5), b.i64(6)]);
            b.index(arr, b.bin(Sub, b.usize(3), b.usize(1)))
        },
        expect!["6"],
    );
    check_plain(
        |b| {
            let arr = b.array(Ty::Int(I64), &[b.i64(4), b.bin(Div, b.i64(1), b.i64(0))]);
            b.index(arr, b.bin(Sub, b.usize(0), b.usize(1)))
        },
        expect![[r#"
            error[E0080]: attempt to divide `1_i64` by zero
             --> x.rs:1:23
              |
            1 | const X: i64 = [4i64, 1i64 / 0i64][(0usize - 1usize)];
              |                       ^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
    // `[e; 0]` still evaluates `e`.
    check_plain(
        |b| b.repeat(b.bin(Div, b.i32(1), b.i32(0)), 0),
        expect![[r#"
            error[E0080]: attempt to divide `1_i32` by zero
             --> x.rs:1:22
              |
            1 | const X: [i32; 0] = [1 / 0; 0];
              |                      ^^^^^ evaluation of `X` failed here
              |"#]],
    );
    check_plain(
        |b| b.repeat(b.repeat(b.bool(true), 2), 3),
        expect!["[[true, true], [true, true], [true, true]]"],
    );
    check_plain(|b| b.repeat(b.unit(), 4), expect!["[(), (), (), ()]"]);
    check_plain(|b| b.array(Ty::Int(I32), &[]), expect!["[]"]);
}

#[test]
fn nested_assignment_to_elements_and_fields() {
    let (env, point, shape) = point_env();
    // let mut s = Shape { corners: [Point { y: 1, x: 2 }; 3], closed: false, name: 7 };
    // s.corners[1].y = 40; s.corners[2].x += 5; s.closed = true; s
    check(
        &env,
        |b| {
            let s = b.local("s", Ty::Struct(shape), true);
            let p = b.slit(point, &[("y", b.i64(1)), ("x", b.i32(2))]);
            let init = b.slit(
                shape,
                &[
                    ("corners", b.repeat(p, 3)),
                    ("closed", b.bool(false)),
                    ("name", b.u64(7)),
                ],
            );
            let c1 = b.field(b.index(b.field(b.var(s), "corners"), b.usize(1)), "y");
            let c2 = b.field(b.index(b.field(b.var(s), "corners"), b.usize(2)), "x");
            b.block(
                vec![
                    St::Let(s, init),
                    St::Expr(b.assign(c1, b.i64(40))),
                    St::Expr(b.assign_op(Add, c2, b.i32(5))),
                    St::Expr(b.assign(b.field(b.var(s), "closed"), b.bool(true))),
                ],
                Some(b.var(s)),
            )
        },
        expect![
            "Shape { 0: 7, 1: [Point { 0: 2, 1: 1 }, Point { 0: 2, 1: 40 }, Point { 0: 7, 1: 1 }], 2: true }"
        ],
    );
    // Fields of a temporary, and a whole struct assigned into an array element.
    check(
        &env,
        |b| {
            let a = b.local("a", Ty::Array(Arc::new(Ty::Struct(point)), 2), true);
            let p = b.slit(point, &[("x", b.i32(1)), ("y", b.i64(2))]);
            let q = b.slit(point, &[("x", b.i32(3)), ("y", b.i64(4))]);
            let temp = b.slit(point, &[("y", b.i64(9)), ("x", b.i32(8))]);
            b.block(
                vec![
                    St::Let(a, b.repeat(p, 2)),
                    St::Expr(b.assign(b.index(b.var(a), b.usize(0)), q)),
                ],
                Some(b.array(
                    Ty::Int(I64),
                    &[
                        b.field(b.index(b.var(a), b.usize(0)), "y"),
                        b.field(b.index(b.var(a), b.usize(1)), "y"),
                        b.field(temp, "y"),
                    ],
                )),
            )
        },
        expect!["[4, 2, 9]"],
    );
    // Out of bounds in a nested place: the first bad index is reported, before later
    // indices are evaluated.
    check_plain(
        |b| {
            let ty = Ty::Array(Arc::new(Ty::Array(Arc::new(Ty::Int(I64)), 2)), 3);
            let a = b.local("a", ty, true);
            let place = b.index(
                b.index(b.var(a), b.usize(5)),
                b.bin(Div, b.usize(1), b.usize(0)),
            );
            b.block(
                vec![
                    St::Let(a, b.repeat(b.repeat(b.i64(1), 2), 3)),
                    St::Expr(b.assign(place, b.i64(3))),
                ],
                Some(b.i64(0)),
            )
        },
        expect![[r#"
            error[E0080]: index out of bounds: the length is 3 but the index is 5
             --> x.rs:1:46
              |
            1 | const X: i64 = { let mut a = [[1i64; 2]; 3]; a[5usize][(1usize / 0usize)] = 3i64; 0i64 };
              |                                              ^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
}

#[test]
fn struct_fields_are_evaluated_in_written_order() {
    let (env, point, _) = point_env();
    // Point { y: 1 / 0, x: i32::MAX + 1 }: the `y` error comes first.
    check(
        &env,
        |b| {
            b.slit(
                point,
                &[
                    ("y", b.bin(Div, b.i64(1), b.i64(0))),
                    ("x", b.bin(Add, b.i32(i32::MAX as i128), b.i32(1))),
                ],
            )
        },
        expect![[r#"
            error[E0080]: attempt to divide `1_i64` by zero
             --> x.rs:1:29
              |
            1 | const X: Point = Point { y: 1i64 / 0i64, x: i32::MAX + 1 };
              |                             ^^^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
}

// ---- other constants ----

#[test]
fn const_ref_chains() {
    let mut env = TestEnv::default();
    // const A: i32 = 20; const B: i32 = A * 2; const C: [i32; 2] = [B, A];
    let a = {
        let b = Tb::new(&env);
        let body = b.i32(20);
        b.finish(body, Ty::Int(I32)).0
    };
    let a = env.add_const("A", a);
    let bdef = {
        let b = Tb::new(&env);
        let body = b.bin(Mul, b.cref(a), b.i32(2));
        b.finish(body, Ty::Int(I32)).0
    };
    let bdef = env.add_const("B", bdef);
    let c = {
        let b = Tb::new(&env);
        let body = b.array(Ty::Int(I32), &[b.cref(bdef), b.cref(a)]);
        b.finish(body, Ty::Array(Arc::new(Ty::Int(I32)), 2)).0
    };
    let c = env.add_const("C", c);
    check(
        &env,
        |b| {
            b.bin(
                Add,
                b.index(b.cref(c), b.usize(0)),
                b.index(b.cref(c), b.usize(1)),
            )
        },
        expect!["60"],
    );
    check(
        &env,
        |b| b.index(b.cref(c), b.usize(2)),
        expect![[r#"
            error[E0080]: index out of bounds: the length is 2 but the index is 2
             --> x.rs:1:16
              |
            1 | const X: i32 = C[2usize];
              |                ^^^^^^^^^ evaluation of `X` failed here
              |"#]],
    );
}

#[test]
fn failing_and_cyclic_constants_are_not_reported_twice() {
    let mut env = TestEnv::default();
    let bad = {
        let b = Tb::new(&env);
        let body = b.bin(Div, b.i32(1), b.i32(0));
        b.finish(body, Ty::Int(I32)).0
    };
    let bad = env.add_const("BAD", bad);
    check(
        &env,
        |b| b.bin(Add, b.cref(bad), b.i32(1)),
        expect![[r#"
            (error already reported)
            reported: BAD: attempt to divide `1_i32` by zero"#]],
    );
    // const P: i32 = Q; const Q: i32 = P + 1;
    let mut env = TestEnv::default();
    let p = def_id("P");
    let q = def_id("Q");
    // Register names first so the builder can print them.
    env.add_const("P", Tb::new(&env).finish_unit());
    env.add_const("Q", Tb::new(&env).finish_unit());
    let p_thir = {
        let b = Tb::new(&env);
        let body = b.add(TExprKind::ConstRef(b.def(q)), Ty::Int(I32), vec![s("Q")]);
        b.finish(body, Ty::Int(I32)).0
    };
    let q_thir = {
        let b = Tb::new(&env);
        let pr = b.add(TExprKind::ConstRef(b.def(p)), Ty::Int(I32), vec![s("P")]);
        let body = b.bin(Add, pr, b.i32(1));
        b.finish(body, Ty::Int(I32)).0
    };
    env.add_const("P", p_thir);
    env.add_const("Q", q_thir);
    check(
        &env,
        |b| b.add(TExprKind::ConstRef(b.def(p)), Ty::Int(I32), vec![s("P")]),
        expect![[r#"
            (error already reported)
            reported: P: cycle detected (E0391)"#]],
    );
}

impl Tb<'_> {
    /// A placeholder `()` constant.
    fn finish_unit(self) -> Thir {
        let body = self.unit();
        self.finish(body, Ty::Unit).0
    }
}

// ---- limits and ill-formed trees ----

#[test]
fn large_arrays_are_fast() {
    // let mut a = [0i64; 100000]; let mut i = 0; while i < 100000 { a[i] = i as i64; i += 1; }
    // then sum them in a second loop.
    let start = std::time::Instant::now();
    let n = 100_000i128;
    let v = eval_short(|b| {
        let arr = Ty::Array(Arc::new(Ty::Int(I64)), n as u64);
        let a = b.local("a", arr, true);
        let i = b.local("i", Ty::Int(Usize), true);
        let acc = b.local("s", Ty::Int(I64), true);
        let w1 = b.reserve();
        let body1 = b.block(
            vec![
                St::Expr(b.assign(b.index(b.var(a), b.var(i)), b.cast(b.var(i), I64))),
                St::Expr(b.assign_op(Add, b.var(i), b.usize(1))),
            ],
            None,
        );
        b.while_(w1, b.bin(Lt, b.var(i), b.usize(n)), body1);
        let w2 = b.reserve();
        let body2 = b.block(
            vec![
                St::Expr(b.assign_op(Sub, b.var(i), b.usize(1))),
                St::Expr(b.assign_op(Add, b.var(acc), b.index(b.var(a), b.var(i)))),
            ],
            None,
        );
        b.while_(w2, b.bin(Gt, b.var(i), b.usize(0)), body2);
        b.block(
            vec![
                St::Let(a, b.repeat(b.i64(0), n as u64)),
                St::Let(i, b.usize(0)),
                St::Let(acc, b.i64(0)),
                St::Expr(w1),
                St::Expr(w2),
            ],
            Some(b.var(acc)),
        )
    });
    assert_eq!(v, Ok(ConstValue::Int(I64, (n * (n - 1) / 2) as u64)));
    assert!(start.elapsed().as_secs() < 5, "{:?}", start.elapsed());
    // The whole array as the value.
    let v = eval_short(|b| b.repeat(b.i64(3), n as u64)).unwrap();
    let ConstValue::Array(items) = v else {
        panic!("not an array")
    };
    assert_eq!(items.len(), n as usize);
    assert!(items.iter().all(|x| *x == ConstValue::Int(I64, 3)));
}

#[test]
fn value_size_limit() {
    // 3 000 000 bools are 3 MB for rustc but 24 MB as evaluated here: over the limit,
    // reported before anything is built.
    check_plain(
        |b| b.repeat(b.bool(false), 3_000_000),
        expect![[r#"
            error: value of type `[bool; 3000000]` is too large for constant evaluation
             --> x.rs:1:28
              |
            1 | const X: [bool; 3000000] = [false; 3000000];
              |                            ^^^^^^^^^^^^^^^^
              |
              = note: constant evaluation holds at most 16777216 bytes per value, counting every integer, `bool` and `()` as 8 bytes (implementation limit `MAX_VALUE_SIZE`)"#]],
    );
    // Zero-sized elements count too.
    let r = eval_short(|b| b.repeat(b.repeat(b.unit(), 0), 1 << 40));
    assert_eq!(
        r,
        Err(
            "value of type `[[(); 0]; 1099511627776]` is too large for constant evaluation"
                .to_string()
        )
    );
    // Right at the limit: 2^21 integers.
    let r = eval_short(|b| b.repeat(b.i32(1), 1 << 21)).map(|v| match v {
        ConstValue::Array(items) => items.len(),
        _ => 0,
    });
    assert_eq!(r, Ok(1 << 21));
}

#[test]
fn memory_limit() {
    // Twenty locals of 16 MiB each exceed `MAX_CONST_EVAL_MEMORY`.
    let r = eval_short(|b| {
        let ty = Ty::Array(Arc::new(Ty::Int(I64)), 1 << 21);
        let stmts = (0..20)
            .map(|k| {
                let l = b.local(&format!("a{k}"), ty.clone(), false);
                St::Let(l, b.repeat(b.i64(0), 1 << 21))
            })
            .collect();
        b.block(stmts, Some(b.unit()))
    });
    assert_eq!(
        r,
        Err("constant evaluation needs more than 268435456 bytes (implementation limit `MAX_CONST_EVAL_MEMORY`)".to_string())
    );
}

#[test]
fn deep_trees_do_not_recurse() {
    // 1 + 1 + ... + 1 (left-deep, 200 000 levels) and a 200 000-deep block nest.
    let r = eval_short(|b| {
        let mut e = b.i64(1);
        for _ in 0..200_000 {
            e = b.add(TExprKind::Binary(Add, e, b.i64(1)), Ty::Int(I64), vec![]);
        }
        e
    });
    assert_eq!(r, Ok(ConstValue::Int(I64, 200_001)));
    let r = eval_short(|b| {
        let mut e = b.i32(7);
        for _ in 0..200_000 {
            e = b.add(
                TExprKind::Block {
                    stmts: ListRange::EMPTY,
                    tail: Some(e),
                },
                Ty::Int(I32),
                vec![],
            );
        }
        e
    });
    assert_eq!(r, Ok(ConstValue::Int(I32, 7)));
}

#[test]
fn deeply_nested_structs() {
    // struct S0 { a: S1 } ... struct S9999 { a: i32 }: layout and value without recursion.
    let mut env = TestEnv::default();
    let depth = 10_000;
    let mut inner_ty = Ty::Int(I32);
    let mut defs = Vec::new();
    for k in (0..depth).rev() {
        let def = env.add_struct(&format!("S{k}"), &[("a", inner_ty.clone())]);
        defs.push(def);
        inner_ty = Ty::Struct(def);
    }
    let b = Tb::new(&env);
    let mut e = b.i32(42);
    for &def in &defs {
        e = b.add(
            TExprKind::StructLit {
                def: b.def(def),
                fields: b.field_list(&[(0, e)]),
            },
            Ty::Struct(def),
            vec![],
        );
    }
    let ret = b.ty(e);
    let (thir, _) = b.finish(e, ret);
    let v = eval_const(&env, &thir).unwrap();
    let text = const_to_string(&v);
    assert!(text.ends_with(&format!("42{}", " }".repeat(depth))));
}

#[test]
fn recursive_struct_is_an_error_reported_elsewhere() {
    let mut env = TestEnv::default();
    let def = struct_id("R");
    env.structs.insert(
        def,
        (
            "R".to_string(),
            Arc::new(StructFields {
                fields: vec![FieldTy {
                    name: Symbol::intern("r"),
                    ty: Ty::Array(Arc::new(Ty::Struct(def)), 1),
                    vis: Vis::Public,
                }],
            }),
        ),
    );
    let b = Tb::new(&env);
    let l = b.local("r", Ty::Struct(def), false);
    let body = b.block(vec![], Some(b.unit()));
    let _ = l;
    let (thir, _) = b.finish(body, Ty::Unit);
    assert_eq!(eval_const(&env, &thir), Err(ConstEvalError::Reported));
}

#[test]
fn calls_and_ill_formed_trees_are_diagnosed_not_panics() {
    let env = TestEnv::default();
    let b = Tb::new(&env);
    let call = b.add(
        TExprKind::Call {
            callee: b.def(def_id("f")),
            args: ListRange::EMPTY,
        },
        Ty::Int(I32),
        vec![s("f()")],
    );
    let (thir, _) = b.finish(call, Ty::Int(I32));
    let Err(ConstEvalError::Error(d)) = eval_const(&env, &thir) else {
        panic!("expected an error")
    };
    assert_eq!(
        (d.code, d.message.as_str()),
        (
            Some("E0015"),
            "unsupported: function calls in constant evaluation"
        )
    );

    // `for`, `return` and `println!` likewise.
    let b = Tb::new(&env);
    let i = b.local("i", Ty::Int(I32), false);
    let body = b.block(vec![], None);
    let for_ = b.add(
        TExprKind::For {
            binding: i,
            start: b.i32(0),
            end: b.i32(3),
            inclusive: false,
            body,
        },
        Ty::Unit,
        vec![s("for i in 0..3 {}")],
    );
    let (thir, _) = b.finish(for_, Ty::Unit);
    assert!(matches!(
        eval_const(&env, &thir),
        Err(ConstEvalError::Error(d)) if d.message == "unsupported: `for` loops in constant evaluation"
    ));

    // An `Error` node means typeck already reported.
    let b = Tb::new(&env);
    let e = b.add(TExprKind::Error, Ty::Error, vec![s("?")]);
    let (thir, _) = b.finish(e, Ty::Int(I32));
    assert_eq!(eval_const(&env, &thir), Err(ConstEvalError::Reported));

    // Ill-typed trees: internal errors, not panics.
    let ill: Vec<BuildFn> = vec![
        Box::new(|b| {
            b.add(
                TExprKind::Binary(Add, b.bool(true), b.i32(1)),
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Binary(Add, b.i32(1), b.i64(1)),
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| b.add(TExprKind::Unary(UnOp::Neg, b.u64(1)), Ty::Int(U64), vec![])),
        Box::new(|b| {
            b.add(
                TExprKind::Binary(And, b.bool(true), b.bool(true)),
                Ty::Bool,
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Index {
                    base: b.i32(1),
                    index: b.usize(0),
                },
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Field {
                    base: b.i32(1),
                    index: 0,
                },
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| b.add(TExprKind::Local(LocalId(99)), Ty::Int(I32), vec![])),
        Box::new(|b| b.add(TExprKind::Int(3.into()), Ty::Bool, vec![])),
        Box::new(|b| {
            b.add(
                TExprKind::Array(b.list(&[b.i32(1), b.i32(2)])),
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Break {
                    target: TExprId(0),
                    value: None,
                },
                Ty::Never,
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Continue {
                    target: TExprId(9999),
                },
                Ty::Never,
                vec![],
            )
        }),
        Box::new(|b| b.never(b.unit(), Ty::Int(I32))),
        Box::new(|b| {
            b.add(
                TExprKind::Assign {
                    place: b.i32(1),
                    value: b.i32(2),
                },
                Ty::Unit,
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Block {
                    stmts: ListRange::EMPTY,
                    tail: None,
                },
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::If {
                    cond: b.bool(false),
                    then_branch: b.i32(1),
                    else_branch: None,
                },
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Repeat {
                    value: b.i32(1),
                    count: 2.into(),
                },
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::StructLit {
                    def: b.def(struct_id("Nope")),
                    fields: ListRange::EMPTY,
                },
                Ty::Struct(struct_id("Nope")),
                vec![],
            )
        }),
        Box::new(|b| {
            let def = b.def(def_id("Missing"));
            b.add(TExprKind::ConstRef(def), Ty::Int(I32), vec![])
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Binary(Add, b.add(TExprKind::Unit, Ty::Int(I32), vec![]), b.i32(1)),
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Binary(Add, b.unit(), b.i32(1)),
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            let a = b.local("a", Ty::Array(Arc::new(Ty::Int(I32)), 2), true);
            let set = b.add(
                TExprKind::Assign {
                    place: b.var(a),
                    value: b.unit(),
                },
                Ty::Unit,
                vec![],
            );
            b.block(
                vec![St::Let(a, b.repeat(b.i32(0), 2)), St::Expr(set)],
                Some(b.i32(0)),
            )
        }),
        Box::new(|b| {
            let a = b.local("a", Ty::Int(I32), true);
            let set = b.add(
                TExprKind::AssignOp {
                    op: Add,
                    place: b.var(a),
                    value: b.unit(),
                },
                Ty::Unit,
                vec![],
            );
            b.block(vec![St::Let(a, b.i32(0)), St::Expr(set)], Some(b.var(a)))
        }),
        Box::new(|b| {
            let a = b.local("a", Ty::Int(I32), true);
            b.block(vec![St::Let(a, b.unit())], Some(b.var(a)))
        }),
        Box::new(|b| {
            b.add(
                TExprKind::Cast {
                    source: b.unit(),
                    from: CastFrom::Bool,
                    to: I32,
                },
                Ty::Int(I32),
                vec![],
            )
        }),
        Box::new(|b| {
            b.add(
                TExprKind::If {
                    cond: b.unit(),
                    then_branch: b.i32(1),
                    else_branch: Some(b.i32(2)),
                },
                Ty::Int(I32),
                vec![],
            )
        }),
    ];
    for (k, build) in ill.iter().enumerate() {
        let r = eval_short(|b| build(b));
        assert!(r.is_err(), "case {k}: {r:?}");
    }
}

#[test]
fn const_to_string_renders_values() {
    let s = const_to_string(&ConstValue::Struct(
        struct_id("P"),
        Arc::from([
            ConstValue::Int(I32, (-1i64) as u64),
            ConstValue::Array(Arc::from([ConstValue::Bool(true), ConstValue::Bool(false)])),
            ConstValue::Unit,
            ConstValue::Struct(struct_id("E"), Arc::from([])),
        ]),
    ));
    expect!["S#fd83065f { 0: -1, 1: [true, false], 2: (), 3: S#52c82b3c {} }"].assert_eq(&s);
}

/// Random trees, mostly ill-typed and some cyclic, never make the evaluator panic or run
/// away: it returns a value or an error.
#[test]
fn random_trees_never_panic() {
    let mut env = TestEnv::default();
    let point = env.add_struct("P", &[("x", Ty::Int(I32)), ("y", Ty::Bool)]);
    let c = {
        let b = Tb::new(&env);
        let body = b.array(Ty::Int(I32), &[b.i32(1), b.i32(2)]);
        b.finish(body, Ty::Array(Arc::new(Ty::Int(I32)), 2)).0
    };
    let c = env.add_const("C", c);
    let arr = Ty::Array(Arc::new(Ty::Int(I32)), 2);
    let types = [
        Ty::Int(I32),
        Ty::Int(I64),
        Ty::Int(U64),
        Ty::Int(Usize),
        Ty::Bool,
        Ty::Unit,
        Ty::Never,
        arr.clone(),
        Ty::Array(Arc::new(arr), 2),
        Ty::Struct(point),
    ];
    let seed = std::cell::Cell::new(0x9E37_79B9_7F4A_7C15u64);
    let next = |n: usize| {
        let mut x = seed.get();
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        seed.set(x);
        (x % n as u64) as usize
    };
    let ops = [
        Add, Sub, Mul, Div, Rem, BitAnd, BitOr, BitXor, Shl, Shr, Eq, Lt, And,
    ];
    let start = std::time::Instant::now();
    let mut values = 0;
    for round in 0..20_000 {
        let n = 1 + next(10);
        let mut exprs = Vec::new();
        let mut lists = TLists::default();
        for _ in 0..n {
            let e = || TExprId(next(n) as u32);
            // Now and then a list reaching past its array.
            let bad = |r: ListRange| match next(8) {
                0 => ListRange {
                    start: r.start + next(4) as u32,
                    len: r.len + 1,
                },
                _ => r,
            };
            let kind = match next(24) {
                0 => TExprKind::Int((next(5) as u64).into()),
                1 => TExprKind::Bool(next(2) == 0),
                2 => TExprKind::Unit,
                3 => TExprKind::Local(LocalId(next(3) as u32)),
                4 => TExprKind::ConstRef(lists.push_def(c)),
                5 => TExprKind::Unary(if next(2) == 0 { UnOp::Neg } else { UnOp::Not }, e()),
                6 => TExprKind::Binary(ops[next(ops.len())], e(), e()),
                7 => TExprKind::LogicalAnd(e(), e()),
                8 => TExprKind::Assign {
                    place: e(),
                    value: e(),
                },
                9 => TExprKind::AssignOp {
                    op: ops[next(10)],
                    place: e(),
                    value: e(),
                },
                10 => TExprKind::Cast {
                    source: e(),
                    from: [CastFrom::Bool, CastFrom::Int(IntTy::ALL[next(4)])][next(2)],
                    to: IntTy::ALL[next(4)],
                },
                11 => TExprKind::Field {
                    base: e(),
                    index: next(3) as u32,
                },
                12 => TExprKind::Index {
                    base: e(),
                    index: e(),
                },
                13 => TExprKind::StructLit {
                    def: lists.push_def(point),
                    fields: bad(lists.push_fields(&[(next(2) as u32, e()), (next(2) as u32, e())])),
                },
                14 => TExprKind::Array(bad(lists.push_exprs(&[e(), e()]))),
                15 => TExprKind::Repeat {
                    value: e(),
                    count: (next(3) as u64).into(),
                },
                16 => TExprKind::Block {
                    stmts: bad(lists.push_stmts(&[
                        TStmt::Let {
                            local: Some(LocalId(next(3) as u32)),
                            init: e(),
                        },
                        TStmt::Expr(e()),
                    ])),
                    tail: if next(2) == 0 { Some(e()) } else { None },
                },
                17 => TExprKind::If {
                    cond: e(),
                    then_branch: e(),
                    else_branch: Some(e()),
                },
                18 => TExprKind::Loop { body: e() },
                19 => TExprKind::While {
                    cond: e(),
                    body: e(),
                },
                20 => TExprKind::Break {
                    target: e(),
                    value: if next(2) == 0 { Some(e()) } else { None },
                },
                21 => TExprKind::Continue { target: e() },
                22 => TExprKind::NeverToAny(e()),
                _ => TExprKind::Return(None),
            };
            exprs.push(TExpr {
                kind,
                ty: lists.push_ty(types[next(types.len())].clone()),
                span: Span::DUMMY,
            });
        }
        let locals = (0..3)
            .map(|_| Local {
                name: Symbol::intern("l"),
                ty: types[next(types.len())].clone(),
                mutable: true,
                span: Span::DUMMY,
            })
            .collect();
        let thir = Thir {
            exprs,
            lists,
            locals,
            params: Vec::new(),
            body: TExprId(next(n) as u32),
            ret: types[next(types.len())].clone(),
        };
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            eval_const_with_step_limit(&env, &thir, 1000)
        }));
        match result {
            Ok(Ok(_)) => values += 1,
            Ok(Err(_)) => {}
            Err(_) => panic!("round {round} panicked on {thir:#?}"),
        }
    }
    assert!(values > 100, "{values}");
    assert!(start.elapsed().as_secs() < 60, "{:?}", start.elapsed());
}

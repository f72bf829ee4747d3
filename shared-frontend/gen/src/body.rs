//! Generates typed statements and expressions: function bodies, and (with `in_const`)
//! constant initializers.
//!
//! Every expression is generated for a known type. Validity and termination are built in:
//! - an unsuffixed integer literal appears only where rustc's inference gives it the
//!   intended type (`anchored` positions, or `i32`, the default);
//! - divisors are `(e & 15) + 1` or positive literals, indices are reduced modulo the
//!   array length, loops have small literal bounds or masked bounds, recursion decreases;
//! - every call adds the callee's cost (times the enclosing loops' iteration bound) to the
//!   function's cost, which is capped, so run time stays bounded however large the program.
//!
//! In a const initializer the evaluator (consteval.rs) has the last word: the builder
//! retries until the initializer evaluates without overflow.

use super::model::*;
use super::rng::Rng;

/// A map from types to items that iterates in insertion order (never in hash order, which
/// would make generation depend on the process).
pub(crate) struct TyMap<T> {
    index: FastMap<Ty, usize>,
    entries: Vec<(Ty, Vec<T>)>,
}

impl<T> Default for TyMap<T> {
    fn default() -> Self {
        TyMap {
            index: FastMap::default(),
            entries: Vec::new(),
        }
    }
}

impl<T> TyMap<T> {
    pub(crate) fn get(&self, ty: &Ty) -> Option<&Vec<T>> {
        self.index.get(ty).map(|&i| &self.entries[i].1)
    }

    pub(crate) fn push(&mut self, ty: Ty, x: T) {
        match self.index.get(&ty) {
            Some(&i) => self.entries[i].1.push(x),
            None => {
                self.index.insert(ty.clone(), self.entries.len());
                self.entries.push((ty, vec![x]));
            }
        }
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &Ty> {
        self.entries.iter().map(|(t, _)| t)
    }
}

/// What a module's code can name, by type: filled by the builder as items are created.
#[derive(Default)]
pub(crate) struct ModCtx {
    pub module: ModId,
    pub fns_by_ret: TyMap<FnId>,
    /// Every function of `fns_by_ret`, in insertion order.
    pub all_fns: Vec<FnId>,
    pub consts_by_ty: TyMap<ConstId>,
    /// Structs that can be named and used here.
    pub structs: Vec<StructId>,
    /// Structs that can also be built with a literal here (all fields visible).
    pub constructible: Vec<StructId>,
    /// Aliases that can be named here, with their canonical types.
    pub aliases: Vec<(AliasId, Ty)>,
    /// Fields readable here (visible, of a struct in `structs`), by type.
    pub fields: TyMap<(StructId, FieldId)>,
    /// `usize` constants with small values, usable as array lengths.
    pub len_consts: Vec<(ConstId, u64)>,
}

impl Default for ModId {
    fn default() -> Self {
        ROOT
    }
}

impl ModCtx {
    /// The context of `module` with the items of `sources` (and the module's own items)
    /// that it can use, and all structs it can use. Structs are added first, in id order,
    /// so nested structs are known.
    pub(crate) fn for_module(m: &Model, module: ModId, sources: &[ModId]) -> ModCtx {
        let mut cx = ModCtx {
            module,
            ..ModCtx::default()
        };
        let mut mods: Vec<ModId> = sources.to_vec();
        if !mods.contains(&module) {
            mods.push(module);
        }
        let items = |k: fn(&Item) -> Option<u32>| {
            let mut v: Vec<u32> = mods
                .iter()
                .flat_map(|md| m.module(*md).items.iter().filter_map(k))
                .collect();
            v.sort_unstable();
            v
        };
        // Every struct (there are few), so that any signature's types can be produced.
        for s in 0..m.structs.len() as u32 {
            cx.add_struct(m, StructId(s));
        }
        for a in items(|i| {
            if let Item::Alias(a) = i {
                Some(a.0)
            } else {
                None
            }
        }) {
            cx.add_alias(m, AliasId(a));
        }
        for c in items(|i| {
            if let Item::Const(c) = i {
                Some(c.0)
            } else {
                None
            }
        }) {
            cx.add_const(m, ConstId(c));
        }
        for f in items(|i| if let Item::Fn(f) = i { Some(f.0) } else { None }) {
            cx.add_fn(m, FnId(f));
        }
        cx
    }

    /// Can code in this module make a value of `ty` (struct literals need every field)?
    pub(crate) fn producible(&self, ty: &Ty) -> bool {
        match ty {
            Ty::Struct(s) => self.constructible.contains(s),
            Ty::Array(e, _) => self.producible(e),
            _ => true,
        }
    }

    pub(crate) fn add_struct(&mut self, m: &Model, s: StructId) {
        let md = self.module;
        let sd = m.strukt(s);
        if !m.nameable(md, ItemKey::Struct(s)) || !m.ty_usable(md, &Ty::Struct(s)) {
            return;
        }
        let ok = sd
            .fields
            .iter()
            .all(|f| m.field_visible(md, s, f) && self.producible(&m.canon(&f.ty)));
        if ok && !self.constructible.contains(&s) {
            self.constructible.push(s);
            self.structs.push(s);
            for f in &sd.fields {
                self.fields.push(m.canon(&f.ty), (s, f.id));
            }
        }
    }

    pub(crate) fn add_alias(&mut self, m: &Model, a: AliasId) {
        let md = self.module;
        let ty = m.canon(&m.alias(a).target);
        if m.nameable(md, ItemKey::Alias(a)) && m.ty_usable(md, &ty) && self.producible(&ty) {
            self.aliases.push((a, ty));
        }
    }

    pub(crate) fn add_const(&mut self, m: &Model, c: ConstId) {
        let md = self.module;
        let cd = m.konst(c);
        let ty = m.canon(&cd.ty);
        if cd.removed || !m.nameable(md, ItemKey::Const(c)) || !m.ty_usable(md, &ty) {
            return;
        }
        if cd.in_types {
            self.len_consts.push((c, cd.value.as_u64()));
        }
        self.consts_by_ty.push(ty, c);
    }

    pub(crate) fn add_fn(&mut self, m: &Model, f: FnId) {
        let md = self.module;
        let fd = m.func(f);
        if fd.removed || fd.kind == FnKind::Printer || fd.kind == FnKind::Main {
            return;
        }
        if !m.nameable(md, ItemKey::Fn(f)) || !m.fn_sig_usable(md, f) {
            return;
        }
        if !fd.params.iter().all(|p| self.producible(&m.canon(&p.ty))) {
            return;
        }
        self.fns_by_ret.push(m.ret_ty(f), f);
        self.all_fns.push(f);
    }
}

/// A local variable in scope.
#[derive(Clone, Debug)]
struct Var {
    name: Local,
    ty: Ty,
    /// The generator may assign it (loop counters are mutable but only the loop's own
    /// increment touches them).
    assignable: bool,
    /// A later `let` may reuse the name (not for counters the loop header reads, the
    /// recursion parameter or main's checksum).
    shadowable: bool,
}

/// The variables in scope, with O(1) answers to "is this binding shadowed?".
#[derive(Default)]
struct Scope {
    vars: Vec<Var>,
    /// For each local name, the index of its latest binding (`u32::MAX` if none); each
    /// entry of `prev` is what that slot held before the binding at the same index.
    latest: Vec<u32>,
    prev: Vec<u32>,
}

impl Scope {
    fn len(&self) -> usize {
        self.vars.len()
    }

    fn push(&mut self, v: Var) {
        let n = v.name.idx();
        if self.latest.len() <= n {
            self.latest.resize(n + 1, u32::MAX);
        }
        self.prev.push(self.latest[n]);
        self.latest[n] = self.vars.len() as u32;
        self.vars.push(v);
    }

    fn truncate(&mut self, len: usize) {
        while self.vars.len() > len {
            let v = self.vars.pop().expect("non-empty");
            self.latest[v.name.idx()] = self.prev.pop().expect("parallel to vars");
        }
    }

    fn has_name(&self, l: Local) -> bool {
        self.latest.get(l.idx()).is_some_and(|&i| i != u32::MAX)
    }

    /// Variables not hidden by a later binding of the same name.
    fn visible(&self) -> impl Iterator<Item = &Var> + Clone {
        self.vars
            .iter()
            .enumerate()
            .filter(|(i, v)| self.latest[v.name.idx()] == *i as u32)
            .map(|(_, v)| v)
    }
}

#[derive(Clone, Debug)]
struct LoopCx {
    label: Option<Label>,
    /// `Some(T)` for a `loop` whose `break` carries a value of type `T`.
    value: Option<Ty>,
}

/// What leaving a loop body restores: the cost multiplier and the variables in scope.
struct LoopScope {
    mult: u64,
    vars: usize,
}

/// Limits on one function's run time and stack use.
pub(crate) const FN_COST_CAP: u64 = 40_000;
pub(crate) const MAX_CALL_DEPTH: u32 = 48;

/// How deeply calls may nest inside the arguments of calls. Each argument starts a new
/// expression of depth 2, and a function of cost 0 adds nothing to the cost budget, so
/// without this bound a struct literal whose field calls a function whose argument is
/// that struct again never ends. High enough that the programs of the experiments'
/// seeds, which never nest this deep, are generated as they were before the bound.
pub(crate) const MAX_CALL_NESTING: u32 = 12;
/// Iterations of a recursive function: its first argument is at most this minus one.
pub(crate) const RECURSION_BOUND: u64 = 16;

pub(crate) struct BodyGen<'a> {
    pub m: &'a Model,
    pub cx: &'a ModCtx,
    pub rng: &'a mut Rng,
    pub in_const: bool,
    pub allow_calls: bool,
    pub allow_print: bool,
    /// Generating `println!` arguments, where assignments are outside the subset.
    in_print: bool,
    /// The function being generated (for self-recursion), and its return type.
    pub this_fn: Option<FnId>,
    pub ret: Option<Ty>,
    pub cost: u64,
    pub cost_cap: u64,
    pub depth: u32,
    /// Statements still to generate in the whole body.
    pub budget: i64,
    pub max_expr_depth: u32,
    /// Items referred to by the generated code (calls, constants, struct literals).
    pub refs: Vec<ItemKey>,
    vars: Scope,
    loops: Vec<LoopCx>,
    mult: u64,
    next_label: u32,
    next_v: u32,
    stmt_depth: u32,
    /// Calls being generated around the current expression (see [`MAX_CALL_NESTING`]).
    call_nesting: u32,
}

impl<'a> BodyGen<'a> {
    pub(crate) fn new(m: &'a Model, cx: &'a ModCtx, rng: &'a mut Rng) -> BodyGen<'a> {
        BodyGen {
            m,
            cx,
            rng,
            in_const: false,
            allow_calls: true,
            allow_print: false,
            in_print: false,
            this_fn: None,
            ret: None,
            cost: 0,
            cost_cap: FN_COST_CAP,
            depth: 0,
            budget: 0,
            max_expr_depth: 3,
            refs: Vec::new(),
            vars: Scope::default(),
            loops: Vec::new(),
            mult: 1,
            next_label: 0,
            next_v: 0,
            stmt_depth: 0,
            call_nesting: 0,
        }
    }

    /// Declares a parameter (or another binding made outside of generated statements).
    pub(crate) fn bind(&mut self, name: Local, ty: Ty, mutable: bool, shadowable: bool) {
        self.vars.push(Var {
            name,
            ty,
            assignable: mutable,
            shadowable,
        });
    }

    /// A fresh local name: a fixed word not in scope, else `v<n>`.
    pub(crate) fn fresh_local(&mut self) -> Local {
        for _ in 0..4 {
            let l = Local(self.rng.below(local_count_fixed() as u64) as u32);
            if !self.vars.has_name(l) {
                return l;
            }
        }
        self.next_v += 1;
        Local(local_count_fixed() + self.next_v - 1)
    }

    fn fresh_label(&mut self) -> Label {
        self.next_label += 1;
        Label(self.next_label - 1)
    }

    /// Variables not hidden by a later binding of the same name.
    fn visible_vars(&self) -> impl Iterator<Item = &Var> {
        self.vars.visible()
    }

    fn var_of_type(&mut self, ty: &Ty) -> Option<Local> {
        pick_nth(self.rng, self.vars.visible().filter(|v| v.ty == *ty)).map(|v| v.name)
    }

    // -----------------------------------------------------------------------------------
    // Types

    /// A random type for a local, parameter or field, with its written form.
    pub(crate) fn random_ty(&mut self, allow_compound: bool) -> (Ty, TyExpr) {
        let k = self.rng.weighted(&[
            30,
            16,
            14,
            12,
            10,
            if allow_compound { 10 } else { 0 },
            if allow_compound { 8 } else { 0 },
        ]);
        let ty = match k {
            0 => Ty::Int(IntTy::I32),
            1 => Ty::Int(IntTy::I64),
            2 => Ty::Int(IntTy::U64),
            3 => Ty::Int(IntTy::Usize),
            4 => Ty::Bool,
            5 if !self.cx.structs.is_empty() => Ty::Struct(*self.rng.pick(&self.cx.structs)),
            _ => {
                let elem = if self.rng.chance(20) && !self.cx.structs.is_empty() {
                    Ty::Struct(*self.rng.pick(&self.cx.structs))
                } else {
                    Ty::Int(*self.rng.pick(&IntTy::ALL))
                };
                return self.array_ty(elem);
            }
        };
        let te = self.spell(&ty);
        (ty, te)
    }

    /// An array type `[elem; n]` with a literal or constant length.
    pub(crate) fn array_ty(&mut self, elem: Ty) -> (Ty, TyExpr) {
        let elem_te = self.spell(&elem);
        let len = if !self.cx.len_consts.is_empty() && self.rng.chance(40) {
            let (c, _) = *self.rng.pick(&self.cx.len_consts);
            if self.rng.chance(25) {
                LenExpr::ConstMul(c, self.rng.next_u64() as u8, 2)
            } else {
                LenExpr::Const(c, self.rng.next_u64() as u8)
            }
        } else {
            LenExpr::Lit(self.rng.range(1, 6))
        };
        let n = self.m.len_value(&len);
        (
            Ty::Array(Box::new(elem), n),
            TyExpr::Array(Box::new(elem_te), len),
        )
    }

    /// A written form of `ty`: sometimes through an alias.
    pub(crate) fn spell(&mut self, ty: &Ty) -> TyExpr {
        if self.rng.chance(30) {
            let cx: &'a ModCtx = self.cx;
            if let Some(a) = pick_nth(self.rng, cx.aliases.iter().filter(|(_, t)| t == ty)) {
                return TyExpr::Alias(a.0, self.hint());
            }
        }
        match ty {
            Ty::Int(i) => TyExpr::Int(*i),
            Ty::Bool => TyExpr::Bool,
            Ty::Struct(s) => TyExpr::Struct(*s, self.hint()),
            Ty::Array(elem, n) => {
                let e = self.spell(elem);
                let len = match self.cx.len_consts.iter().find(|(_, v)| v == n) {
                    Some((c, _)) if self.rng.chance(50) => LenExpr::Const(*c, self.hint()),
                    _ => LenExpr::Lit(*n),
                };
                TyExpr::Array(Box::new(e), len)
            }
            Ty::Unit => panic!("unit is never spelled"),
        }
    }

    fn cast_ty(&mut self, t: IntTy) -> CastTy {
        if self.rng.chance(20) {
            let cx: &'a ModCtx = self.cx;
            let want = Ty::Int(t);
            if let Some(a) = pick_nth(self.rng, cx.aliases.iter().filter(|(_, ty)| *ty == want)) {
                return CastTy::Alias(a.0, self.hint());
            }
        }
        CastTy::Int(t)
    }

    fn const_ref(&mut self, c: ConstId) -> Expr {
        self.refs.push(ItemKey::Const(c));
        Expr::Const(c, self.hint())
    }

    fn hint(&mut self) -> PathHint {
        self.rng.next_u64() as u8
    }

    // -----------------------------------------------------------------------------------
    // Blocks and statements

    /// A block whose value has type `ty` (`Ty::Unit` for no tail).
    pub(crate) fn block(&mut self, ty: &Ty, max_stmts: usize) -> Block {
        self.block_with_tail(ty, max_stmts, self.max_expr_depth, true)
    }

    /// A block of up to `max_stmts` statements and a tail of type `ty` (none for unit),
    /// generated inside the block's scope.
    fn block_with_tail(&mut self, ty: &Ty, max_stmts: usize, depth: u32, anchored: bool) -> Block {
        let mark = self.vars.len();
        self.stmt_depth += 1;
        let mut stmts = Vec::new();
        let n = if max_stmts == 0 {
            0
        } else {
            self.rng.range(1, max_stmts as u64)
        };
        self.stmts(&mut stmts, n);
        let tail = if *ty == Ty::Unit {
            None
        } else {
            Some(self.expr(ty, depth, anchored))
        };
        self.stmt_depth -= 1;
        self.vars.truncate(mark);
        Block { stmts, tail }
    }

    /// A function body: statements, then a tail of the return type (or a diverging end).
    pub(crate) fn fn_body(&mut self, ret: &Ty) -> Block {
        let mut stmts = Vec::new();
        self.stmt_depth = 1;
        while self.budget > 0 {
            self.stmt(&mut stmts);
        }
        let tail = if *ret == Ty::Unit {
            None
        } else {
            match self.rng.below(100) {
                // `return e;` as the last statement: the block's type is `!`.
                0..=7 => {
                    let e = self.expr(ret, self.max_expr_depth, true);
                    stmts.push(Stmt::Expr(Expr::Return(Some(Box::new(e)))));
                    None
                }
                // A `loop` that only ends by returning: the tail has type `!`.
                8..=11 if !self.in_const => {
                    let k = self.fresh_local();
                    let t = IntTy::I32;
                    self.counter(&mut stmts, k, t, true);
                    let bound = self.rng.range(1, 4);
                    let saved = self.mult;
                    self.mult *= bound + 1;
                    let mut body = vec![incr(k, t)];
                    let ret_e = self.expr(ret, 2, true);
                    body.push(if_then(
                        Expr::Binary(
                            BinOp::Gt,
                            Box::new(Expr::Local(k)),
                            Box::new(self.lit_val(t, bound, true, false)),
                        ),
                        vec![Stmt::Expr(Expr::Return(Some(Box::new(ret_e))))],
                    ));
                    self.budget = 2;
                    while self.budget > 0 {
                        self.stmt(&mut body);
                    }
                    self.mult = saved;
                    Some(Expr::Loop(
                        None,
                        Box::new(Block {
                            stmts: body,
                            tail: None,
                        }),
                    ))
                }
                _ => Some(self.expr(ret, self.max_expr_depth, true)),
            }
        };
        Block { stmts, tail }
    }

    fn add_cost(&mut self, c: u64) {
        self.cost = self.cost.saturating_add(c.saturating_mul(self.mult));
    }

    /// Appends one or more statements.
    pub(crate) fn stmt(&mut self, out: &mut Vec<Stmt>) {
        self.budget -= 1;
        self.add_cost(1);
        let weights = self.stmt_weights();
        match self.rng.weighted(&weights) {
            0 => self.let_stmt(out),
            1 => self.let_mut_stmt(out),
            2 => self.assign(out),
            3 => {
                let s = self.if_stmt(2);
                out.push(s);
            }
            4 => self.for_stmt(out, None),
            5 => self.while_stmt(out),
            6 => self.loop_value_stmt(out),
            7 => {
                let (ty, _) = self.random_ty(true);
                let e = self.expr(&ty, 2, false);
                out.push(Stmt::LetWild(e));
            }
            8 => {
                let cands: &'a [FnId] = &self.cx.all_fns;
                if let Some(call) = self.pick_call_from(cands, 1) {
                    out.push(Stmt::Expr(call));
                }
            }
            9 => {
                let b = self.block(&Ty::Unit, 3);
                if !b.stmts.is_empty() {
                    out.push(Stmt::Expr(Expr::Block(Box::new(b))));
                }
            }
            10 => self.early_return(out),
            11 => self.shadowing_let(out),
            12 => {
                if self.rng.chance(25) {
                    out.push(Stmt::Blank);
                } else {
                    out.push(Stmt::Comment(self.comment()));
                }
            }
            13 => {
                let p = self.print();
                out.push(Stmt::Print(p));
            }
            14 => {
                let s = self.break_or_continue();
                out.push(s);
            }
            15 => self.let_else_return(out),
            16 => {
                let label = self.fresh_label();
                self.for_stmt(out, Some(label));
            }
            _ => unreachable!(),
        }
    }

    /// The weight of each kind of statement [`Self::stmt`] chooses from, in its order; 0
    /// for the kinds that are not allowed here.
    fn stmt_weights(&self) -> [u32; 17] {
        let nested_ok = self.stmt_depth < 4 && self.mult < 64;
        let in_loop = !self.loops.is_empty();
        let has_assignable = self.visible_vars().any(|v| v.assignable);
        let c = self.in_const;
        [
            30,                                           // 0 let
            10,                                           // 1 let mut
            if has_assignable { 16 } else { 0 },          // 2 assign
            if nested_ok { 8 } else { 0 },                // 3 if
            if nested_ok && !c { 6 } else { 0 },          // 4 for
            if nested_ok { 3 } else { 0 },                // 5 while
            if nested_ok { 3 } else { 0 },                // 6 loop with value
            3,                                            // 7 let _
            if self.allow_calls && !c { 3 } else { 0 },   // 8 call statement
            if nested_ok { 2 } else { 0 },                // 9 block statement
            if self.ret.is_some() && !c { 3 } else { 0 }, // 10 early return
            4,                                            // 11 shadowing let
            if c { 0 } else { 3 },                        // 12 comment / blank
            if self.allow_print && self.mult <= 8 {
                8
            } else {
                0
            }, // 13 print
            if in_loop { 6 } else { 0 },                  // 14 break / continue
            if self.ret.is_some() && !c { 2 } else { 0 }, // 15 let with `!` branch
            if nested_ok && !c && self.mult <= 8 {
                2
            } else {
                0
            }, // 16 labeled nested loops
        ]
    }

    /// Appends the `let` statement `decl` and brings its name into scope with type `ty`:
    /// shadowable, and assignable if the binding is `mut`.
    fn declare(&mut self, out: &mut Vec<Stmt>, decl: Stmt, ty: Ty) {
        let Stmt::Let { name, mutable, .. } = decl else {
            unreachable!("only `let` statements declare variables")
        };
        out.push(decl);
        self.vars.push(Var {
            name,
            ty,
            assignable: mutable,
            shadowable: true,
        });
    }

    /// `let v = e;`, sometimes annotated or documented.
    fn let_stmt(&mut self, out: &mut Vec<Stmt>) {
        let (ty, te) = self.random_ty(true);
        let annotate = self.rng.chance(45);
        let init = self.expr(&ty, self.max_expr_depth, annotate);
        let name = self.fresh_local();
        let doc = (!self.in_const && self.rng.chance(3)).then(|| "the next value".to_string());
        let decl = Stmt::Let {
            name,
            mutable: false,
            ty: annotate.then_some(te),
            init,
            doc,
        };
        self.declare(out, decl, ty);
    }

    /// `let mut v = e;`, usually followed by an assignment.
    fn let_mut_stmt(&mut self, out: &mut Vec<Stmt>) {
        let (ty, te) = self.random_ty(true);
        let annotate = self.rng.chance(50);
        let init = self.expr(&ty, self.max_expr_depth, annotate);
        let name = self.fresh_local();
        let decl = Stmt::Let {
            name,
            mutable: true,
            ty: annotate.then_some(te),
            init,
            doc: None,
        };
        self.declare(out, decl, ty);
        // Use the mutability right away, so `mut` is rarely unused.
        if self.budget > 0 {
            self.budget -= 1;
            self.assign(out);
        }
    }

    /// `if c { return v; }`
    fn early_return(&mut self, out: &mut Vec<Stmt>) {
        let ret = self.ret.clone().expect("has return type");
        let cond = self.expr(&Ty::Bool, 2, true);
        let v = if ret == Ty::Unit {
            None
        } else {
            Some(Box::new(self.expr(&ret, 2, true)))
        };
        out.push(if_then(cond, vec![Stmt::Expr(Expr::Return(v))]));
    }

    /// Shadows a visible variable, possibly with another type.
    fn shadowing_let(&mut self, out: &mut Vec<Stmt>) {
        let Some(old) = pick_nth(self.rng, self.vars.visible().filter(|v| v.shadowable)) else {
            return;
        };
        let old = old.clone();
        let annotate = self.rng.chance(30);
        let (ty, te, init) = match old.ty.int() {
            Some(_) if self.rng.chance(50) => {
                let nt = *self.rng.pick(&IntTy::ALL);
                let ct = self.cast_ty(nt);
                (
                    Ty::Int(nt),
                    TyExpr::Int(nt),
                    Expr::Cast(Box::new(Expr::Local(old.name)), ct),
                )
            }
            Some(t) => {
                let e = self.expr(&Ty::Int(t), 1, true);
                let op = *self
                    .rng
                    .pick(&[BinOp::Add, BinOp::BitXor, BinOp::Mul, BinOp::Sub]);
                (
                    Ty::Int(t),
                    TyExpr::Int(t),
                    Expr::Binary(op, Box::new(Expr::Local(old.name)), Box::new(e)),
                )
            }
            None => {
                let (ty, te) = self.random_ty(false);
                let e = self.expr(&ty, 2, annotate);
                (ty, te, e)
            }
        };
        let decl = Stmt::Let {
            name: old.name,
            mutable: false,
            ty: annotate.then_some(te),
            init,
            doc: None,
        };
        self.declare(out, decl, ty);
    }

    /// `let v: T = if c { e } else { return r };` (or the branches the other way round).
    fn let_else_return(&mut self, out: &mut Vec<Stmt>) {
        let ret = self.ret.clone().expect("has return type");
        let (ty, te) = self.random_ty(false);
        let cond = self.expr(&Ty::Bool, 2, true);
        let e = self.expr(&ty, 2, true);
        let r = if ret == Ty::Unit {
            None
        } else {
            Some(Box::new(self.expr(&ret, 1, true)))
        };
        let value = Block {
            stmts: vec![],
            tail: Some(e),
        };
        let diverge = Block {
            stmts: vec![],
            tail: Some(Expr::Return(r)),
        };
        let (then, els) = if self.rng.chance(50) {
            (value, diverge)
        } else {
            (diverge, value)
        };
        let init = Expr::If(Box::new(If {
            cond,
            then,
            els: Some(Else::Block(els)),
        }));
        let decl = Stmt::Let {
            name: self.fresh_local(),
            mutable: false,
            ty: Some(te),
            init,
            doc: None,
        };
        self.declare(out, decl, ty);
    }

    fn comment(&mut self) -> Comment {
        let words = [
            "keep the running total",
            "step two",
            "cheap path first",
            "see the note above",
            "bounded loop",
        ];
        let w = self.rng.pick(&words).to_string();
        match self.rng.below(6) {
            0 => Comment::Block(w),
            1 => Comment::Block(format!("outer /* nested */ {w}")),
            2 => Comment::FourSlash(w),
            _ => Comment::Line(w),
        }
    }

    fn print(&mut self) -> Print {
        const WORDS: &[&str] = &[
            "value", "sum", "result", "flag", "state", "total", "step", "count",
        ];
        if self.rng.chance(8) {
            return Print {
                pieces: vec![],
                args: vec![],
                trailing_comma: false,
            };
        }
        let n = self.rng.below(3) as usize;
        let mut pieces = Vec::with_capacity(n + 1);
        let mut args = Vec::with_capacity(n);
        let first = if self.rng.chance(15) {
            format!("{{{}}} ", self.rng.pick(WORDS))
        } else {
            format!("{} ", self.rng.pick(WORDS))
        };
        pieces.push(first);
        for i in 0..n {
            let ty = if self.rng.chance(20) {
                Ty::Bool
            } else {
                Ty::Int(*self.rng.pick(&IntTy::ALL))
            };
            let outer = std::mem::replace(&mut self.in_print, true);
            args.push(self.expr(&ty, 2, false));
            self.in_print = outer;
            pieces.push(if i + 1 < n {
                format!(" {} ", self.rng.pick(WORDS))
            } else {
                String::new()
            });
        }
        Print {
            pieces,
            args,
            trailing_comma: self.rng.chance(15),
        }
    }

    fn break_or_continue(&mut self) -> Stmt {
        let mut i = if self.rng.chance(70) {
            self.loops.len() - 1
        } else {
            self.rng.index(self.loops.len())
        };
        if self.loops[i].label.is_none() {
            // Only the innermost loop can be targeted without a label.
            i = self.loops.len() - 1;
        }
        let target = self.loops[i].clone();
        let innermost = i == self.loops.len() - 1;
        let label = if innermost && self.rng.chance(70) {
            None
        } else {
            target.label
        };
        let cond = self.expr(&Ty::Bool, 2, true);
        let jump = match (&target.value, self.rng.chance(50)) {
            (Some(ty), _) => {
                let v = self.expr(ty, 1, true);
                Expr::Break(label, Some(Box::new(v)))
            }
            (None, true) => Expr::Break(label, None),
            (None, false) => Expr::Continue(label),
        };
        if_then(cond, vec![Stmt::Expr(jump)])
    }

    fn if_stmt(&mut self, max_stmts: usize) -> Stmt {
        let cond = self.expr(&Ty::Bool, 2, true);
        let then = self.block(&Ty::Unit, max_stmts);
        let els = match self.rng.below(3) {
            0 => None,
            1 => Some(Else::Block(self.block(&Ty::Unit, max_stmts))),
            _ => {
                let c2 = self.expr(&Ty::Bool, 2, true);
                let b2 = self.block(&Ty::Unit, max_stmts);
                let tail = if self.rng.chance(50) {
                    Some(Else::Block(self.block(&Ty::Unit, max_stmts)))
                } else {
                    None
                };
                Some(Else::If(Box::new(If {
                    cond: c2,
                    then: b2,
                    els: tail,
                })))
            }
        };
        Stmt::Expr(Expr::If(Box::new(If { cond, then, els })))
    }

    /// `for i in lo..hi { … }` with a bounded iteration count; `label` adds a nested loop
    /// that breaks or continues the outer one.
    fn for_stmt(&mut self, out: &mut Vec<Stmt>, label: Option<Label>) {
        let t = *self
            .rng
            .pick(&[IntTy::I32, IntTy::I32, IntTy::Usize, IntTy::U64, IntTy::I64]);
        let inclusive = self.rng.chance(35);
        let (lo, hi, count) = self.for_range(t);
        let var = self.fresh_local();
        let mutable = self.rng.chance(10);
        let scope = self.enter_loop(count, LoopCx { label, value: None });
        self.vars.push(Var {
            name: var,
            ty: Ty::Int(t),
            assignable: mutable,
            shadowable: true,
        });
        let mut body = Vec::new();
        if let Some(l) = label {
            let inner = self.jumping_inner_loop(l);
            body.push(inner);
        } else {
            let n = self.rng.range(1, 3);
            self.stmts(&mut body, n);
        }
        self.leave_loop(scope);
        out.push(Stmt::Expr(Expr::For(Box::new(For {
            label,
            var,
            mutable,
            lo,
            hi,
            inclusive,
            body: Block {
                stmts: body,
                tail: None,
            },
        }))));
    }

    /// The bounds of a `for` loop over `t` and an upper bound of its iteration count.
    fn for_range(&mut self, t: IntTy) -> (Expr, Expr, u64) {
        match self.rng.below(10) {
            // Near the maximum: `(T::MAX - 2)..=T::MAX` stops after MAX.
            0 => {
                let k = self.rng.range(0, 3);
                let max = Expr::Assoc {
                    ty: self.cast_ty(t),
                    max: true,
                };
                let lo = Expr::Binary(
                    BinOp::Sub,
                    Box::new(max.clone()),
                    Box::new(self.lit_val(t, k, true, false)),
                );
                (lo, max, k + 1)
            }
            // Near the minimum.
            1 => {
                let k = self.rng.range(1, 4);
                let min = Expr::Assoc {
                    ty: self.cast_ty(t),
                    max: false,
                };
                let hi = Expr::Binary(
                    BinOp::Add,
                    Box::new(min.clone()),
                    Box::new(self.lit_val(t, k, true, false)),
                );
                (min, hi, k + 1)
            }
            // Bounded by a runtime value: `0..(e & 7)`.
            2..=4 => {
                let k = *self.rng.pick(&[3u64, 7]);
                let e = self.expr(&Ty::Int(t), 2, true);
                let hi = Expr::Paren(Box::new(Expr::Binary(
                    BinOp::BitAnd,
                    Box::new(e),
                    Box::new(self.lit_val(t, k, true, false)),
                )));
                let lo = self.lit_val(t, 0, false, false);
                (lo, hi, k + 1)
            }
            _ => {
                let a = self.rng.range(0, 3);
                let b = a + self.rng.range(0, 5);
                (
                    self.lit_val(t, a, false, false),
                    self.lit_val(t, b, true, false),
                    b - a + 1,
                )
            }
        }
    }

    /// An inner `for` loop that leaves or restarts the outer loop `l` by its label.
    fn jumping_inner_loop(&mut self, l: Label) -> Stmt {
        let inner_t = IntTy::I32;
        let j = self.fresh_local();
        let n = self.rng.range(1, 3);
        self.mult = self.mult.saturating_mul(n + 1);
        self.loops.push(LoopCx {
            label: None,
            value: None,
        });
        self.vars.push(Var {
            name: j,
            ty: Ty::Int(inner_t),
            assignable: false,
            shadowable: true,
        });
        let mut inner = Vec::new();
        let c1 = self.expr(&Ty::Bool, 2, true);
        inner.push(if_then(c1, vec![Stmt::Expr(Expr::Continue(Some(l)))]));
        let c2 = self.expr(&Ty::Bool, 2, true);
        inner.push(if_then(c2, vec![Stmt::Expr(Expr::Break(Some(l), None))]));
        self.budget += 1;
        self.stmt(&mut inner);
        self.loops.pop();
        Stmt::Expr(Expr::For(Box::new(For {
            label: None,
            var: j,
            mutable: false,
            lo: self.lit_val(inner_t, 0, false, false),
            hi: self.lit_val(inner_t, n, true, false),
            inclusive: true,
            body: Block {
                stmts: inner,
                tail: None,
            },
        })))
    }

    /// `let mut k = 0; while k < n { k += 1; … }`; nothing in `println!` arguments, where
    /// the counter's assignment is outside the subset (as [`Self::assign`], without drawing
    /// from the generator, so that every program that never came here stays the same).
    fn while_stmt(&mut self, out: &mut Vec<Stmt>) {
        if self.in_print {
            return;
        }
        let t = *self.rng.pick(&[IntTy::I32, IntTy::U64, IntTy::Usize]);
        let k = self.fresh_local();
        let n = self.rng.range(1, 5);
        self.counter(out, k, t, false);
        let mut cond = Expr::Binary(
            BinOp::Lt,
            Box::new(Expr::Local(k)),
            Box::new(self.lit_val(t, n, true, false)),
        );
        if self.rng.chance(25) {
            // No `break` or `continue` in a `while` condition (E0590 when unlabeled):
            // the condition is generated as if outside every loop.
            let enclosing = std::mem::take(&mut self.loops);
            let extra = self.expr(&Ty::Bool, 1, true);
            self.loops = enclosing;
            cond = Expr::Binary(BinOp::And, Box::new(cond), Box::new(extra));
        }
        let label = self.rng.chance(20).then(|| self.fresh_label());
        let scope = self.enter_loop(n, LoopCx { label, value: None });
        let mut body = vec![incr(k, t)];
        let m = self.rng.range(1, 3);
        self.stmts(&mut body, m);
        self.leave_loop(scope);
        out.push(Stmt::Expr(Expr::While(
            label,
            Box::new(cond),
            Box::new(Block {
                stmts: body,
                tail: None,
            }),
        )));
    }

    /// `let mut k = 0; let r = loop { k += 1; if k >= n { break v; } … };`; nothing in
    /// `println!` arguments (see [`Self::while_stmt`]).
    fn loop_value_stmt(&mut self, out: &mut Vec<Stmt>) {
        if self.in_print {
            return;
        }
        let t = IntTy::I32;
        let k = self.fresh_local();
        let n = self.rng.range(1, 5);
        self.counter(out, k, t, true);
        let (ty, te) = self.random_ty(false);
        let label = self.rng.chance(25).then(|| self.fresh_label());
        let scope = self.enter_loop(
            n,
            LoopCx {
                label,
                value: Some(ty.clone()),
            },
        );
        let annotate = self.rng.chance(50);
        let exit_val = self.expr(&ty, 2, annotate);
        let cond = Expr::Binary(
            BinOp::Ge,
            Box::new(Expr::Local(k)),
            Box::new(self.lit_val(t, n, true, false)),
        );
        let mut body = vec![
            incr(k, t),
            if_then(
                cond,
                vec![Stmt::Expr(Expr::Break(label, Some(Box::new(exit_val))))],
            ),
        ];
        let m = self.rng.range(0, 2);
        self.stmts(&mut body, m);
        self.leave_loop(scope);
        let decl = Stmt::Let {
            name: self.fresh_local(),
            mutable: false,
            ty: annotate.then_some(te),
            init: Expr::Loop(
                label,
                Box::new(Block {
                    stmts: body,
                    tail: None,
                }),
            ),
            doc: None,
        };
        self.declare(out, decl, ty);
    }

    /// Appends `let mut k = 0;` for a loop counter `k` of type `t` (`anchored` as for
    /// [`Self::lit_val`]), in scope but neither assigned nor shadowed by other statements.
    fn counter(&mut self, out: &mut Vec<Stmt>, k: Local, t: IntTy, anchored: bool) {
        let init = self.lit_val(t, 0, anchored, false);
        out.push(Stmt::Let {
            name: k,
            mutable: true,
            ty: None,
            init,
            doc: None,
        });
        self.vars.push(Var {
            name: k,
            ty: Ty::Int(t),
            assignable: false,
            shadowable: false,
        });
    }

    /// Enters the body of loop `cx`, which runs at most `iterations` times; returns what
    /// [`Self::leave_loop`] restores.
    fn enter_loop(&mut self, iterations: u64, cx: LoopCx) -> LoopScope {
        let scope = LoopScope {
            mult: self.mult,
            vars: self.vars.len(),
        };
        self.mult = self.mult.saturating_mul(iterations);
        self.loops.push(cx);
        self.stmt_depth += 1;
        scope
    }

    fn leave_loop(&mut self, scope: LoopScope) {
        self.stmt_depth -= 1;
        self.vars.truncate(scope.vars);
        self.loops.pop();
        self.mult = scope.mult;
    }

    /// Appends up to `n` statements, fewer if the budget runs out.
    fn stmts(&mut self, out: &mut Vec<Stmt>, n: u64) {
        for _ in 0..n {
            if self.budget <= 0 {
                break;
            }
            self.stmt(out);
        }
    }

    /// An assignment (plain or compound) to a place rooted at an assignable variable.
    fn assign(&mut self, out: &mut Vec<Stmt>) {
        if self.in_print {
            return;
        }
        let Some(v) = pick_nth(self.rng, self.vars.visible().filter(|v| v.assignable)) else {
            return;
        };
        let v = v.clone();
        let mut place = Place::Local(v.name);
        let mut ty = v.ty.clone();
        // Descend into fields and elements.
        for _ in 0..2 {
            if !self.rng.chance(60) {
                break;
            }
            match ty.clone() {
                Ty::Struct(s) => {
                    let sd = self.m.strukt(s);
                    let vis: Vec<&FieldDef> = sd
                        .fields
                        .iter()
                        .filter(|f| self.m.field_visible(self.cx.module, s, f))
                        .collect();
                    if vis.is_empty() {
                        break;
                    }
                    let f = *self.rng.pick(&vis);
                    ty = self.m.canon(&f.ty);
                    place = Place::Field(Box::new(place), s, f.id);
                }
                Ty::Array(elem, n) => {
                    let idx = self.index_expr(n);
                    ty = *elem;
                    place = Place::Index(Box::new(place), Box::new(idx));
                }
                _ => break,
            }
        }
        let (op, value) = match &ty {
            Ty::Int(t) if self.rng.chance(60) => {
                let t = *t;
                let ops = [
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::BitXor,
                    BinOp::BitOr,
                    BinOp::BitAnd,
                    BinOp::Shl,
                    BinOp::Shr,
                    BinOp::Div,
                    BinOp::Rem,
                ];
                let op = *self.rng.pick(&ops);
                let value = match op {
                    BinOp::Shl | BinOp::Shr => self.shift_amount(t),
                    BinOp::Div | BinOp::Rem => self.divisor(t),
                    _ => self.expr(&ty, 2, true),
                };
                (Some(op), value)
            }
            Ty::Bool if self.rng.chance(40) => {
                let op = *self.rng.pick(&[BinOp::BitAnd, BinOp::BitOr, BinOp::BitXor]);
                (Some(op), self.expr(&ty, 2, true))
            }
            _ => (None, self.expr(&ty, 2, true)),
        };
        out.push(Stmt::Assign { place, op, value });
    }

    // -----------------------------------------------------------------------------------
    // Expressions

    /// An expression of type `ty`. `anchored`: the context fixes its type (annotation,
    /// parameter, operand unified with a typed one, …), so unsuffixed literals are safe.
    pub(crate) fn expr(&mut self, ty: &Ty, depth: u32, anchored: bool) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            return self.leaf(ty, anchored);
        }
        match ty {
            Ty::Int(t) => self.int_expr(*t, depth, anchored),
            Ty::Bool => self.bool_expr(depth),
            Ty::Struct(s) => self.struct_expr(*s, depth),
            Ty::Array(elem, n) => self.array_expr(elem, *n, depth, anchored),
            Ty::Unit => Expr::Block(Box::default()),
        }
    }

    fn leaf(&mut self, ty: &Ty, anchored: bool) -> Expr {
        let k = self.rng.below(100);
        if k < 45 {
            if let Some(l) = self.var_of_type(ty) {
                return Expr::Local(l);
            }
        }
        if k < 60 {
            if let Some(cs) = self.cx.consts_by_ty.get(ty) {
                let c = *self.rng.pick(cs);
                return self.const_ref(c);
            }
        }
        match ty {
            Ty::Int(t) => {
                if k > 95 {
                    return Expr::Assoc {
                        ty: self.cast_ty(*t),
                        max: self.rng.chance(50),
                    };
                }
                self.lit(*t, anchored)
            }
            Ty::Bool => Expr::Bool(self.rng.chance(50)),
            Ty::Struct(s) => self.struct_expr(*s, 1),
            Ty::Array(elem, n) => self.array_expr(elem, *n, 1, anchored),
            Ty::Unit => Expr::Block(Box::default()),
        }
    }

    /// A free integer literal of type `t` (negative for signed types sometimes).
    pub(crate) fn lit(&mut self, t: IntTy, anchored: bool) -> Expr {
        let max = t.max() as u64;
        let v = match self.rng.below(100) {
            0..=44 => self.rng.range(0, 9),
            45..=74 => self.rng.range(10, 999),
            75..=89 => self.rng.range(1000, (max).min(1 << 40)),
            90..=94 => max - self.rng.range(0, 2),
            _ => self.rng.range(0, max),
        };
        let v = if self.in_const { v.min(1 << 20) } else { v };
        if t.signed() && self.rng.chance(25) {
            // `-2147483648i32`: one past the maximum is allowed right under unary minus.
            if !self.in_const && self.rng.chance(4) {
                return Expr::Unary(
                    UnOp::Neg,
                    Box::new(self.lit_val(t, max + 1, anchored, true)),
                );
            }
            return Expr::Unary(UnOp::Neg, Box::new(self.lit_val(t, v, anchored, true)));
        }
        self.lit_val(t, v, anchored, true)
    }

    /// The literal `v` of type `t`, suffixed where the context does not fix the type.
    pub(crate) fn lit_val(&mut self, t: IntTy, v: u64, anchored: bool, free: bool) -> Expr {
        let suffix = !(anchored || t == IntTy::I32) || self.rng.chance(15);
        let style = match self.rng.below(100) {
            0..=74 => LitStyle::Dec,
            75..=84 => LitStyle::Underscored,
            85..=93 => LitStyle::Hex,
            94..=96 if v < 1 << 16 => LitStyle::Bin,
            97..=98 => LitStyle::Octal,
            _ if v < 1000 => LitStyle::Zeros,
            _ => LitStyle::Dec,
        };
        Expr::Int(IntLit {
            value: v,
            ty: t,
            suffix,
            style,
            free,
        })
    }

    /// A right operand for `<<`/`>>`: at run time any amount is fine (it is masked), in a
    /// const it must be below the bit width.
    fn shift_amount(&mut self, _lhs: IntTy) -> Expr {
        let t = *self.rng.pick(&IntTy::ALL);
        if self.in_const {
            let v = self.rng.range(0, 31);
            return self.lit_val(t, v, false, false);
        }
        match self.rng.below(4) {
            0 => {
                let v = self.rng.range(0, 100);
                self.lit_val(t, v, false, false)
            }
            1 if t.signed() => {
                let v = self.rng.range(1, 3);
                Expr::Unary(UnOp::Neg, Box::new(self.lit_val(t, v, false, false)))
            }
            _ => self.expr(&Ty::Int(t), 2, false),
        }
    }

    /// A divisor that is never zero nor -1: a positive literal or `((e & 15) + 1)`.
    fn divisor(&mut self, t: IntTy) -> Expr {
        if self.rng.chance(40) {
            let v = self.rng.range(1, 100);
            return self.lit_val(t, v, true, false);
        }
        let e = self.expr(&Ty::Int(t), 2, true);
        let masked = Expr::Paren(Box::new(Expr::Binary(
            BinOp::BitAnd,
            Box::new(e),
            Box::new(self.lit_val(t, 15, true, false)),
        )));
        Expr::Paren(Box::new(Expr::Binary(
            BinOp::Add,
            Box::new(masked),
            Box::new(self.lit_val(t, 1, true, false)),
        )))
    }

    /// An index into an array of length `n`: a literal below `n`, or `e % n`.
    fn index_expr(&mut self, n: u64) -> Expr {
        if self.rng.chance(50) {
            let v = self.rng.below(n);
            return self.lit_val(IntTy::Usize, v, true, false);
        }
        let e = if self.rng.chance(50) {
            self.expr(&Ty::Int(IntTy::Usize), 2, true)
        } else {
            let t = *self.rng.pick(&[IntTy::I32, IntTy::U64, IntTy::I64]);
            let mut inner = self.expr(&Ty::Int(t), 1, false);
            suffix_spine(&mut inner);
            Expr::Cast(Box::new(inner), CastTy::Int(IntTy::Usize))
        };
        Expr::Binary(
            BinOp::Rem,
            Box::new(e),
            Box::new(self.lit_val(IntTy::Usize, n, true, false)),
        )
    }

    fn int_expr(&mut self, t: IntTy, depth: u32, anchored: bool) -> Expr {
        let d = depth - 1;
        let calls = self.allow_calls && !self.in_const;
        let w = [
            30,                             // 0 arithmetic / bitwise
            6,                              // 1 shift
            5,                              // 2 div / rem
            if t.signed() { 4 } else { 2 }, // 3 unary
            8,                              // 4 cast
            if calls { 14 } else { 0 },     // 5 call
            5,                              // 6 field
            5,                              // 7 index
            4,                              // 8 if
            2,                              // 9 block
            2,                              // 10 paren
            3,                              // 11 MAX/MIN arithmetic
        ];
        match self.rng.weighted(&w) {
            0 => {
                let op = *self.rng.pick(&[
                    BinOp::Add,
                    BinOp::Sub,
                    BinOp::Mul,
                    BinOp::BitAnd,
                    BinOp::BitOr,
                    BinOp::BitXor,
                    BinOp::Add,
                    BinOp::Sub,
                ]);
                let a = self.expr(&Ty::Int(t), d, anchored);
                let b = self.expr(&Ty::Int(t), d, true);
                Expr::Binary(op, Box::new(a), Box::new(b))
            }
            1 => {
                let a = self.expr(&Ty::Int(t), d, anchored);
                let b = self.shift_amount(t);
                Expr::Binary(
                    if self.rng.chance(50) {
                        BinOp::Shl
                    } else {
                        BinOp::Shr
                    },
                    Box::new(a),
                    Box::new(b),
                )
            }
            2 => {
                let a = self.expr(&Ty::Int(t), d, anchored);
                let b = self.divisor(t);
                Expr::Binary(
                    if self.rng.chance(60) {
                        BinOp::Div
                    } else {
                        BinOp::Rem
                    },
                    Box::new(a),
                    Box::new(b),
                )
            }
            3 => {
                let mut op = if t.signed() && self.rng.chance(60) {
                    UnOp::Neg
                } else {
                    UnOp::Not
                };
                let a = self.expr(&Ty::Int(t), d, anchored);
                if is_negated_min_literal(&a) {
                    // rustc accepts `-2147483648` only when that `-` is not negated again.
                    op = UnOp::Not;
                }
                Expr::Unary(op, Box::new(a))
            }
            4 => {
                let src = if self.rng.chance(15) {
                    Ty::Bool
                } else {
                    Ty::Int(*self.rng.pick(&IntTy::ALL))
                };
                let mut a = self.expr(&src, d, false);
                suffix_spine(&mut a);
                let ct = self.cast_ty(t);
                Expr::Cast(Box::new(a), ct)
            }
            5 => self
                .call(&Ty::Int(t))
                .unwrap_or_else(|| self.leaf(&Ty::Int(t), anchored)),
            6 => self
                .field_read(&Ty::Int(t), d)
                .unwrap_or_else(|| self.leaf(&Ty::Int(t), anchored)),
            7 => self
                .index_read(&Ty::Int(t), d)
                .unwrap_or_else(|| self.leaf(&Ty::Int(t), anchored)),
            8 => self.if_expr(&Ty::Int(t), d, anchored),
            9 => self.block_expr(&Ty::Int(t), d, anchored),
            10 => Expr::Paren(Box::new(self.expr(&Ty::Int(t), d, anchored))),
            11 => {
                let max = self.rng.chance(50);
                let k = self.rng.range(0, 100);
                let ct = self.cast_ty(t);
                let lit = self.lit_val(t, k, true, true);
                Expr::Binary(
                    if max { BinOp::Sub } else { BinOp::Add },
                    Box::new(Expr::Assoc { ty: ct, max }),
                    Box::new(lit),
                )
            }
            _ => unreachable!(),
        }
    }

    fn bool_expr(&mut self, depth: u32) -> Expr {
        let d = depth - 1;
        let calls = self.allow_calls && !self.in_const;
        match self
            .rng
            .weighted(&[40, 15, 8, if calls { 6 } else { 0 }, 4, 4, 4, 3])
        {
            0 => {
                let op = *self.rng.pick(&[
                    BinOp::Eq,
                    BinOp::Ne,
                    BinOp::Lt,
                    BinOp::Gt,
                    BinOp::Le,
                    BinOp::Ge,
                ]);
                let ty = if self.rng.chance(8) {
                    Ty::Bool
                } else {
                    Ty::Int(*self.rng.pick(&IntTy::ALL))
                };
                let a = self.expr(&ty, d.min(2), false);
                let b = self.expr(&ty, d.min(2), true);
                Expr::Binary(op, Box::new(a), Box::new(b))
            }
            1 => {
                let op = if self.rng.chance(50) {
                    BinOp::And
                } else {
                    BinOp::Or
                };
                let a = self.expr(&Ty::Bool, d, true);
                let b = self.expr(&Ty::Bool, d, true);
                Expr::Binary(op, Box::new(a), Box::new(b))
            }
            2 => Expr::Unary(UnOp::Not, Box::new(self.expr(&Ty::Bool, d, true))),
            3 => self
                .call(&Ty::Bool)
                .unwrap_or_else(|| self.leaf(&Ty::Bool, true)),
            4 => self
                .field_read(&Ty::Bool, d)
                .unwrap_or_else(|| self.leaf(&Ty::Bool, true)),
            5 => self
                .index_read(&Ty::Bool, d)
                .unwrap_or_else(|| self.leaf(&Ty::Bool, true)),
            6 => self.if_expr(&Ty::Bool, d, true),
            _ => Expr::Paren(Box::new(self.expr(&Ty::Bool, d, true))),
        }
    }

    fn struct_expr(&mut self, s: StructId, depth: u32) -> Expr {
        let d = depth.saturating_sub(1);
        let can_lit = self.cx.constructible.contains(&s);
        let calls = self.allow_calls && !self.in_const && depth > 1;
        let ty = Ty::Struct(s);
        match self.rng.weighted(&[
            if can_lit { 50 } else { 0 },
            if calls { 20 } else { 0 },
            15,
            10,
            5,
        ]) {
            0 => self.struct_lit(s, d),
            1 => match self.call(&ty) {
                Some(c) => c,
                None => self.struct_fallback(s, d),
            },
            2 => self
                .var_of_type(&ty)
                .map(Expr::Local)
                .unwrap_or_else(|| self.struct_fallback(s, d)),
            3 => match self.cx.consts_by_ty.get(&ty) {
                Some(cs) => {
                    let c = *self.rng.pick(cs);
                    self.const_ref(c)
                }
                None => self.struct_fallback(s, d),
            },
            _ if depth > 1 => self.if_expr(&ty, d, true),
            _ => self.struct_fallback(s, d),
        }
    }

    /// Some expression of struct type `s`, which must exist: a literal if possible, else a
    /// variable, constant or call (the builder only offers struct types that have one).
    fn struct_fallback(&mut self, s: StructId, d: u32) -> Expr {
        let ty = Ty::Struct(s);
        if self.cx.constructible.contains(&s) {
            return self.struct_lit(s, d);
        }
        if let Some(l) = self.var_of_type(&ty) {
            return Expr::Local(l);
        }
        if let Some(cs) = self.cx.consts_by_ty.get(&ty) {
            return self.const_ref(cs[0]);
        }
        if let Some(c) = self.call_nested(&ty) {
            return c;
        }
        panic!(
            "no way to make a value of struct {s:?} in module {:?}",
            self.cx.module
        )
    }

    pub(crate) fn struct_lit(&mut self, s: StructId, d: u32) -> Expr {
        let sd = self.m.strukt(s);
        let mut order: Vec<usize> = (0..sd.fields.len()).collect();
        if self.rng.chance(30) {
            self.rng.shuffle(&mut order);
        }
        let mut fields = Vec::with_capacity(order.len());
        for i in order {
            let f = &self.m.strukt(s).fields[i];
            let fty = self.m.canon(&f.ty);
            let fid = f.id;
            // Shorthand `Name { x }` when a variable of that name and type is visible.
            if let Some(l) = local_by_name(&f.name) {
                if self.visible_vars().any(|v| v.name == l && v.ty == fty) && self.rng.chance(60) {
                    fields.push(FieldInit {
                        field: fid,
                        value: Expr::Local(l),
                        shorthand: true,
                    });
                    continue;
                }
            }
            let value = self.expr(&fty, d.min(2), true);
            fields.push(FieldInit {
                field: fid,
                value,
                shorthand: false,
            });
        }
        let alias = {
            let (m, cx): (&'a Model, &'a ModCtx) = (self.m, self.cx);
            let want = Ty::Struct(s);
            if self.rng.chance(25) {
                pick_nth(
                    self.rng,
                    cx.aliases.iter().filter(|(a, t)| {
                        *t == want && matches!(m.alias(*a).target, TyExpr::Struct(..))
                    }),
                )
                .map(|(a, _)| *a)
            } else {
                None
            }
        };
        self.refs.push(ItemKey::Struct(s));
        Expr::StructLit(Box::new(StructLit {
            st: s,
            hint: self.hint(),
            alias,
            fields,
        }))
    }

    fn array_expr(&mut self, elem: &Ty, n: u64, depth: u32, anchored: bool) -> Expr {
        let d = depth.saturating_sub(1);
        let ty = Ty::Array(Box::new(elem.clone()), n);
        let k = self.rng.below(100);
        if k < 25 {
            if let Some(l) = self.var_of_type(&ty) {
                return Expr::Local(l);
            }
        }
        if k < 35 {
            if let Some(cs) = self.cx.consts_by_ty.get(&ty) {
                let c = *self.rng.pick(cs);
                return self.const_ref(c);
            }
        }
        if k < 45 && self.allow_calls && !self.in_const {
            if let Some(c) = self.call(&ty) {
                return c;
            }
        }
        if k < 70 || n > 6 {
            // `[e; N]`, with N written as a constant when one has that value.
            let e = self.expr(elem, d.min(1), anchored);
            let len = match self.cx.len_consts.iter().find(|(_, v)| *v == n) {
                Some((c, _)) if self.rng.chance(60) => LenExpr::Const(*c, self.hint()),
                _ => LenExpr::Lit(n),
            };
            return Expr::Repeat(Box::new(e), len);
        }
        let mut es = Vec::with_capacity(n as usize);
        for i in 0..n {
            es.push(self.expr(elem, d.min(1), anchored || i > 0));
        }
        Expr::Array(es)
    }

    fn if_expr(&mut self, ty: &Ty, d: u32, anchored: bool) -> Expr {
        let cond = self.expr(&Ty::Bool, d.min(2), true);
        let small = self.stmt_depth < 3 && self.budget > 0 && self.rng.chance(20);
        let then = if small {
            self.budget -= 1;
            self.block_with_tail(ty, 1, d, anchored)
        } else {
            Block {
                stmts: vec![],
                tail: Some(self.expr(ty, d, anchored)),
            }
        };
        let els = if self.rng.chance(25) && d > 0 {
            let c2 = self.expr(&Ty::Bool, 1, true);
            let b2 = Block {
                stmts: vec![],
                tail: Some(self.expr(ty, d - 1, true)),
            };
            let b3 = Block {
                stmts: vec![],
                tail: Some(self.expr(ty, d - 1, true)),
            };
            Else::If(Box::new(If {
                cond: c2,
                then: b2,
                els: Some(Else::Block(b3)),
            }))
        } else {
            Else::Block(Block {
                stmts: vec![],
                tail: Some(self.expr(ty, d, true)),
            })
        };
        Expr::If(Box::new(If {
            cond,
            then,
            els: Some(els),
        }))
    }

    fn block_expr(&mut self, ty: &Ty, d: u32, anchored: bool) -> Expr {
        let mark = self.vars.len();
        let (lty, lte) = self.random_ty(false);
        let annotate = self.rng.chance(40);
        let init = self.expr(&lty, d, annotate);
        let name = self.fresh_local();
        let stmts = vec![Stmt::Let {
            name,
            mutable: false,
            ty: annotate.then_some(lte),
            init,
            doc: None,
        }];
        self.vars.push(Var {
            name,
            ty: lty,
            assignable: false,
            shadowable: true,
        });
        let tail = self.expr(ty, d, anchored);
        self.vars.truncate(mark);
        Expr::Block(Box::new(Block {
            stmts,
            tail: Some(tail),
        }))
    }

    /// A read of a visible field of type `ty` from a struct-typed expression.
    fn field_read(&mut self, ty: &Ty, d: u32) -> Option<Expr> {
        let cx: &'a ModCtx = self.cx;
        let cands = cx.fields.get(ty)?;
        if cands.is_empty() {
            return None;
        }
        let (s, f) = *self.rng.pick(cands);
        let base = if let Some(l) = self.var_of_type(&Ty::Struct(s)) {
            Expr::Local(l)
        } else {
            self.struct_expr(s, d.min(1))
        };
        Some(Expr::Field(Box::new(base), s, f))
    }

    /// An element of an array-typed expression, with an in-bounds index.
    fn index_read(&mut self, elem: &Ty, d: u32) -> Option<Expr> {
        let arr_ty = self.visible_vars().find_map(|v| match &v.ty {
            Ty::Array(e, _) if **e == *elem => Some(v.ty.clone()),
            _ => None,
        });
        let arr_ty = match arr_ty {
            Some(t) => t,
            None => {
                let consts: Vec<Ty> = self
                    .cx
                    .consts_by_ty
                    .keys()
                    .filter(|t| matches!(t, Ty::Array(e, _) if **e == *elem))
                    .cloned()
                    .collect();
                if consts.is_empty() {
                    if self.rng.chance(50) {
                        return None;
                    }
                    Ty::Array(Box::new(elem.clone()), self.rng.range(1, 4))
                } else {
                    self.rng.pick(&consts).clone()
                }
            }
        };
        let Ty::Array(_, n) = arr_ty else {
            unreachable!()
        };
        let base = self.array_expr(elem, n, d.min(1), false);
        let idx = self.index_expr(n);
        Some(Expr::Index(Box::new(base), Box::new(idx)))
    }

    // -----------------------------------------------------------------------------------
    // Calls

    /// A call of a function returning `ty`, within the cost and depth budgets.
    fn call(&mut self, ty: &Ty) -> Option<Expr> {
        if self.call_nesting >= MAX_CALL_NESTING {
            return None;
        }
        self.call_nested(&ty)
    }

    /// [`Self::call`] at any nesting: for a value that only a call can make.
    fn call_nested(&mut self, ty: &Ty) -> Option<Expr> {
        if !self.allow_calls || self.in_const {
            return None;
        }
        let cx: &'a ModCtx = self.cx;
        let cands = cx.fns_by_ret.get(ty)?;
        self.pick_call_from(cands, 3)
    }

    fn pick_call_from(&mut self, cands: &[FnId], tries: usize) -> Option<Expr> {
        if cands.is_empty() {
            return None;
        }
        for _ in 0..tries {
            let f = *self.rng.pick(cands);
            let fd = self.m.func(f);
            let extra = fd.cost.saturating_mul(self.mult);
            if self.cost.saturating_add(extra) > self.cost_cap || fd.depth + 1 > MAX_CALL_DEPTH {
                continue;
            }
            self.cost += extra;
            self.depth = self.depth.max(fd.depth);
            return Some(self.call_args(f));
        }
        None
    }

    /// The call `f(args)` with generated arguments (bounded first argument for a
    /// recursive function).
    pub(crate) fn call_args(&mut self, f: FnId) -> Expr {
        let fd = self.m.func(f);
        let kind = fd.kind;
        let param_tys: Vec<Ty> = fd.params.iter().map(|p| self.m.canon(&p.ty)).collect();
        let mut args = Vec::with_capacity(param_tys.len());
        self.call_nesting += 1;
        for (i, pt) in param_tys.iter().enumerate() {
            if i == 0 && kind == FnKind::Recursive {
                args.push(self.recursion_arg());
            } else {
                args.push(self.expr(pt, 2, true));
            }
        }
        self.call_nesting -= 1;
        self.refs.push(ItemKey::Fn(f));
        Expr::Call(Box::new(Call {
            callee: f,
            hint: self.hint(),
            args,
        }))
    }

    /// A `u64` below [`RECURSION_BOUND`].
    pub(crate) fn recursion_arg(&mut self) -> Expr {
        if self.rng.chance(40) {
            let v = self.rng.below(RECURSION_BOUND);
            return self.lit_val(IntTy::U64, v, true, false);
        }
        let e = self.expr(&Ty::Int(IntTy::U64), 1, true);
        Expr::Binary(
            BinOp::BitAnd,
            Box::new(e),
            Box::new(self.lit_val(IntTy::U64, RECURSION_BOUND - 1, true, false)),
        )
    }
}

/// Is `e` (through parentheses) `-N` where `N` is one past its type's maximum? Such a
/// literal must not be negated again: rustc's `overflowing_literals` lint then sees the
/// literal as positive.
pub(crate) fn is_negated_min_literal(e: &Expr) -> bool {
    match e {
        Expr::Paren(x) => is_negated_min_literal(x),
        Expr::Unary(UnOp::Neg, x) => {
            let mut x: &Expr = x;
            while let Expr::Paren(inner) = x {
                x = inner;
            }
            matches!(x, Expr::Int(l) if l.value as i128 > l.ty.max())
        }
        _ => false,
    }
}

/// Suffixes the literals that the expected type of `e` would reach (through parentheses,
/// unary operators, block tails and `if` branches). Used for the operand of `as`, whose
/// target type is an expected type: `-5 as usize` types `5` as `usize` and is an error.
pub(crate) fn suffix_spine(e: &mut Expr) {
    match e {
        Expr::Int(l) => l.suffix = true,
        Expr::Paren(x) | Expr::Unary(_, x) => suffix_spine(x),
        Expr::Block(b) => {
            if let Some(t) = &mut b.tail {
                suffix_spine(t)
            }
        }
        Expr::If(i) => {
            let mut cur: &mut If = i;
            loop {
                if let Some(t) = &mut cur.then.tail {
                    suffix_spine(t);
                }
                match &mut cur.els {
                    Some(Else::Block(b)) => {
                        if let Some(t) = &mut b.tail {
                            suffix_spine(t);
                        }
                        break;
                    }
                    Some(Else::If(next)) => cur = next,
                    None => break,
                }
            }
        }
        _ => {}
    }
}

/// A uniformly chosen item of `it`, without collecting it.
fn pick_nth<I: Iterator + Clone>(rng: &mut Rng, it: I) -> Option<I::Item> {
    let n = it.clone().count();
    if n == 0 {
        return None;
    }
    let k = rng.index(n);
    it.into_iter().nth(k)
}

/// `if cond { stmts }`
pub(crate) fn if_then(cond: Expr, stmts: Vec<Stmt>) -> Stmt {
    Stmt::Expr(Expr::If(Box::new(If {
        cond,
        then: Block { stmts, tail: None },
        els: None,
    })))
}

/// `k += 1;`
fn incr(k: Local, t: IntTy) -> Stmt {
    Stmt::Assign {
        place: Place::Local(k),
        op: Some(BinOp::Add),
        value: Expr::Int(IntLit {
            value: 1,
            ty: t,
            suffix: false,
            style: LitStyle::Dec,
            free: false,
        }),
    }
}

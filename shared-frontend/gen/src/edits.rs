//! Edits of a valid program that keep it valid (experiment E3), and edit histories.
//!
//! Each edit kind means what its name says (see [`EditKind`]). Edits work on the program's
//! model, then re-render only the files whose modules they touched.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::body::{suffix_spine, BodyGen, ModCtx};
use super::build::zero_value;
use super::consteval::reevaluate_all;
use super::model::*;
use super::rng::Rng;
use super::{render, Program, SourceFile};

/// The kinds of edit of experiment E3.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EditKind {
    /// Blank lines or indentation change; no token changes.
    Whitespace,
    /// A plain comment is added or changed; no token changes.
    Comment,
    /// The body of a function that calls nothing changes; its result may change.
    LeafBody,
    /// A body changes without changing what it computes (`v` → `(a + b)`, `e` → `e ^ 0`,
    /// two independent `let`s swapped).
    BodyUnchangedResult,
    /// A function gains, loses or retypes a parameter, or changes its return type; every
    /// caller is fixed.
    Signature,
    /// A constant's value changes.
    ConstValue,
    /// A constant's type changes (e.g. `i32` → `i64`); its uses get casts.
    ConstType,
    /// A struct gains, loses or retypes a field; literals and uses are fixed.
    StructField,
    /// A new (uncalled) function is added.
    AddFn,
    /// A function is removed, with its calls if it has any.
    RemoveFn,
    /// An error that rustc rejects is introduced (fixed by the next `FixError`).
    IntroduceError,
    /// The pending introduced error is removed.
    FixError,
}

impl EditKind {
    pub const ALL: &'static [EditKind] = &[
        EditKind::Whitespace,
        EditKind::Comment,
        EditKind::LeafBody,
        EditKind::BodyUnchangedResult,
        EditKind::Signature,
        EditKind::ConstValue,
        EditKind::ConstType,
        EditKind::StructField,
        EditKind::AddFn,
        EditKind::RemoveFn,
        EditKind::IntroduceError,
        EditKind::FixError,
    ];

    pub fn name(self) -> &'static str {
        match self {
            EditKind::Whitespace => "whitespace",
            EditKind::Comment => "comment",
            EditKind::LeafBody => "leaf-body",
            EditKind::BodyUnchangedResult => "body-unchanged-result",
            EditKind::Signature => "signature",
            EditKind::ConstValue => "const-value",
            EditKind::ConstType => "const-type",
            EditKind::StructField => "struct-field",
            EditKind::AddFn => "add-fn",
            EditKind::RemoveFn => "remove-fn",
            EditKind::IntroduceError => "introduce-error",
            EditKind::FixError => "fix-error",
        }
    }
}

impl std::fmt::Display for EditKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One edit: its kind, a human description, and the edited program.
#[derive(Clone, Debug)]
pub struct Edit {
    pub kind: EditKind,
    pub description: String,
    pub program: Program,
}

/// Applies an edit of `kind` to `p`, choosing what to edit from `seed`. `None` if the kind
/// is impossible on `p` (e.g. `FixError` with no pending error, or `p` has no model).
pub fn apply_edit(p: &Program, kind: EditKind, seed: u64) -> Option<Edit> {
    let model = p.model.as_ref()?;
    let mut ed = Editor::new(
        (**model).clone(),
        seed ^ (kind as u64).wrapping_mul(0x2545_F491_4F6C_DD1D),
    );
    let description = match kind {
        EditKind::Whitespace => ed.whitespace(),
        EditKind::Comment => ed.comment(),
        EditKind::LeafBody => ed.leaf_body(),
        EditKind::BodyUnchangedResult => ed.body_unchanged_result(),
        EditKind::Signature => ed.signature(),
        EditKind::ConstValue => ed.const_value(),
        EditKind::ConstType => ed.const_type(),
        EditKind::StructField => ed.struct_field(),
        EditKind::AddFn => ed.add_fn(),
        EditKind::RemoveFn => ed.remove_fn(),
        EditKind::IntroduceError => ed.introduce_error(),
        EditKind::FixError => ed.fix_error(),
    }?;
    Some(Edit {
        kind,
        description,
        program: ed.finish(p),
    })
}

/// A history of `len` edits starting from `p`: each edit applies to the previous one's
/// program. Every kind appears when `len` allows; every program is valid except right
/// after an `IntroduceError`, which a later `FixError` in the history always undoes.
pub fn edit_history(p: &Program, len: usize, seed: u64) -> Vec<Edit> {
    let mut rng = Rng::new(seed ^ 0xED17);
    let mut out: Vec<Edit> = Vec::with_capacity(len);
    let mut cur = p.clone();
    let mut pending = false;
    let mut queue: Vec<EditKind> = Vec::new();
    while out.len() < len {
        let remaining = len - out.len();
        let kind = if pending && (remaining == 1 || rng.chance(40)) {
            EditKind::FixError
        } else {
            if queue.is_empty() {
                queue = EditKind::ALL
                    .iter()
                    .copied()
                    .filter(|k| *k != EditKind::FixError)
                    .collect();
                rng.shuffle(&mut queue);
            }
            let k = queue.pop().expect("refilled");
            if k == EditKind::IntroduceError && (pending || remaining < 2) {
                continue;
            }
            k
        };
        // A kind may be impossible on this program: fall back to the always possible ones.
        let mut edit = apply_edit(&cur, kind, rng.next_u64());
        for fallback in [EditKind::Comment, EditKind::Whitespace] {
            if edit.is_none() {
                edit = apply_edit(&cur, fallback, rng.next_u64());
            }
        }
        let Some(edit) = edit else { break };
        match edit.kind {
            EditKind::IntroduceError => pending = true,
            EditKind::FixError => pending = false,
            _ => {}
        }
        cur = edit.program.clone();
        out.push(edit);
    }
    out
}

/// A model being edited, and the files it must re-render.
pub(crate) struct Editor {
    pub m: Model,
    pub rng: Rng,
    /// Modules owning files whose text changed.
    dirty: BTreeSet<ModId>,
}

impl Editor {
    pub(crate) fn new(m: Model, seed: u64) -> Editor {
        Editor {
            m,
            rng: Rng::new(seed),
            dirty: BTreeSet::new(),
        }
    }

    pub(crate) fn touch(&mut self, module: ModId) {
        let f = self.m.file_of(module);
        self.dirty.insert(f);
    }

    pub(crate) fn fn_mut(&mut self, f: FnId) -> &mut FnDef {
        self.touch(self.m.func(f).module);
        Arc::make_mut(&mut self.m.fns[f.idx()])
    }

    pub(crate) fn const_mut(&mut self, c: ConstId) -> &mut ConstDef {
        self.touch(self.m.konst(c).module);
        Arc::make_mut(&mut self.m.consts[c.idx()])
    }

    pub(crate) fn struct_mut(&mut self, s: StructId) -> &mut StructDef {
        self.touch(self.m.strukt(s).module);
        Arc::make_mut(&mut self.m.structs[s.idx()])
    }

    pub(crate) fn module_mut(&mut self, md: ModId) -> &mut Module {
        self.touch(md);
        Arc::make_mut(&mut self.m.mods[md.idx()])
    }

    /// The edited program: untouched files are copied, touched ones re-rendered.
    pub(crate) fn finish(self, old: &Program) -> Program {
        let file_mods = self.m.file_modules();
        let mut files: Vec<SourceFile> = old.files.clone();
        debug_assert_eq!(
            files.len(),
            file_mods.len(),
            "edits never add or remove files"
        );
        for (i, fm) in file_mods.iter().enumerate() {
            if self.dirty.contains(fm) {
                files[i].text = render::render_file(&self.m, *fm);
            }
        }
        let p = Program {
            files,
            model: Some(Arc::new(self.m)),
        };
        #[cfg(debug_assertions)]
        if p.files.iter().map(|f| f.text.len()).sum::<usize>() < 400_000 {
            let full = Program::from_model((**p.model.as_ref().expect("model")).clone(), false);
            assert!(
                full.files == p.files,
                "an edit changed a file it did not mark as touched"
            );
        }
        p
    }

    fn fresh(&mut self) -> u32 {
        self.m.fresh += 1;
        self.m.fresh
    }

    /// A local name that no generated code uses (`v5000`, `v5001`, …).
    fn fresh_local(&mut self) -> Local {
        let n = self.fresh();
        Local(local_count_fixed() + 5000 + n)
    }

    fn fn_desc(&self, f: FnId) -> String {
        let fd = self.m.func(f);
        format!(
            "`{}` in {}",
            fd.name,
            self.m.file_path(self.m.file_of(fd.module))
        )
    }

    fn pinned(&self, f: FnId) -> bool {
        self.m.pending_error.as_ref().is_some_and(|e| e.host == f)
    }

    /// Live functions other than `main`, in id order.
    fn fns_where(&self, pred: impl Fn(&FnDef) -> bool) -> Vec<FnId> {
        self.m
            .live_fns()
            .filter(|f| *f != self.m.main && pred(self.m.func(*f)))
            .collect()
    }

    fn pick<T: Copy>(&mut self, v: &[T]) -> Option<T> {
        (!v.is_empty()).then(|| *self.rng.pick(v))
    }

    /// Functions whose bodies contain an expression matching `pred` (read-only scan).
    fn fns_containing(&self, pred: impl Fn(&Expr) -> bool) -> Vec<FnId> {
        self.m
            .live_fns()
            .filter(|f| {
                let mut hit = false;
                self.m.func(*f).body.walk(&mut |e| hit |= pred(e));
                hit
            })
            .collect()
    }

    fn consts_containing(&self, pred: impl Fn(&Expr) -> bool) -> Vec<ConstId> {
        self.m
            .live_consts()
            .filter(|c| {
                let mut hit = false;
                self.m.konst(*c).init.walk(&mut |e| hit |= pred(e));
                hit
            })
            .collect()
    }

    /// Rewrites every expression matching `pred` in all functions and constants.
    fn rewrite_exprs(
        &mut self,
        pred: impl Fn(&Expr) -> bool + Copy,
        rewrite: &mut dyn FnMut(&mut Expr),
    ) {
        for f in self.fns_containing(pred) {
            self.fn_mut(f).body.walk_mut(&mut |e| {
                if pred(e) {
                    rewrite(e)
                }
            });
        }
        for c in self.consts_containing(pred) {
            self.const_mut(c).init.walk_mut(&mut |e| {
                if pred(e) {
                    rewrite(e)
                }
            });
        }
    }

    /// Applies `f` to every statement (in functions and const initializers) that assigns
    /// through field `fid` of struct `s`.
    fn rewrite_assigns(&mut self, s: StructId, fid: FieldId, f: &mut dyn FnMut(&mut Stmt)) {
        let fns: Vec<FnId> = self
            .m
            .live_fns()
            .filter(|g| assigns_field(&self.m.func(*g).body, s, fid))
            .collect();
        for g in fns {
            self.fn_mut(g)
                .body
                .walk_blocks_mut(&mut |b| b.stmts.iter_mut().for_each(&mut *f));
        }
        let consts: Vec<ConstId> = self
            .m
            .live_consts()
            .filter(|c| {
                let b = Block {
                    stmts: vec![],
                    tail: Some(self.m.konst(*c).init.clone()),
                };
                assigns_field(&b, s, fid)
            })
            .collect();
        for c in consts {
            self.const_mut(c)
                .init
                .walk_blocks_mut(&mut |b| b.stmts.iter_mut().for_each(&mut *f));
        }
    }

    fn ctx_for(&mut self, module: ModId) -> ModCtx {
        let mut sources = vec![ROOT];
        let mut cur = module;
        while let Some(p) = self.m.module(cur).parent {
            sources.push(p);
            cur = p;
        }
        for _ in 0..2 {
            let k = ModId(self.rng.index(self.m.mods.len()) as u32);
            sources.push(k);
        }
        ModCtx::for_module(&self.m, module, &sources)
    }

    // -----------------------------------------------------------------------------------
    // Token-preserving edits

    fn whitespace(&mut self) -> Option<String> {
        let fns = self.fns_where(|_| true);
        let f = self.pick(&fns)?;
        let desc = self.fn_desc(f);
        match self.rng.below(3) {
            0 => {
                let fd = self.fn_mut(f);
                fd.trivia.blank_lines_before = (fd.trivia.blank_lines_before + 1) % 3;
                Some(format!("blank lines before {desc}"))
            }
            1 => {
                let fd = self.fn_mut(f);
                fd.indent_extra = if fd.indent_extra == 0 { 4 } else { 0 };
                Some(format!("re-indented the body of {desc}"))
            }
            _ => {
                let pos = self.rng.index(self.m.func(f).body.stmts.len() + 1);
                self.fn_mut(f).body.stmts.insert(pos, Stmt::Blank);
                Some(format!("blank line inside {desc}"))
            }
        }
    }

    fn comment(&mut self) -> Option<String> {
        let fns = self.fns_where(|_| true);
        let f = self.pick(&fns)?;
        let desc = self.fn_desc(f);
        let n = self.fresh();
        let text = format!("edited note {n}");
        let c = match self.rng.below(3) {
            0 => Comment::Line(text),
            1 => Comment::Block(format!("{text} /* nested */")),
            _ => Comment::FourSlash(text),
        };
        if self.rng.chance(50) {
            self.fn_mut(f).trivia.comment = Some(c);
            Some(format!("comment before {desc}"))
        } else {
            let pos = self.rng.index(self.m.func(f).body.stmts.len() + 1);
            self.fn_mut(f).body.stmts.insert(pos, Stmt::Comment(c));
            Some(format!("comment inside {desc}"))
        }
    }

    // -----------------------------------------------------------------------------------
    // Body edits

    fn leaf_body(&mut self) -> Option<String> {
        let leaves = self.fns_where(|fd| fd.kind == FnKind::Normal && !has_call(&fd.body));
        let leaves: Vec<FnId> = leaves.into_iter().filter(|f| !self.pinned(*f)).collect();
        let f = self.pick(&leaves)?;
        let desc = self.fn_desc(f);
        // Either change one free literal, or regenerate the body without calls.
        let lits = count_free_lits(&self.m.func(f).body);
        if lits > 0 && self.rng.chance(50) {
            let k = self.rng.index(lits);
            let r = self.rng.next_u64();
            let mut i = 0;
            self.fn_mut(f).body.walk_mut(&mut |e| {
                if let Expr::Int(l) = e {
                    if l.free {
                        if i == k {
                            let max = if l.suffix {
                                l.ty.max() as u64
                            } else {
                                l.ty.max().min(i32::MAX as i128) as u64
                            };
                            let v = (l.value ^ (r % 1000 + 1)).min(max);
                            l.value = if v == l.value {
                                (v + 1) % (max.min(1000) + 1)
                            } else {
                                v
                            };
                        }
                        i += 1;
                    }
                }
            });
            return Some(format!("changed a literal in leaf {desc}"));
        }
        let module = self.m.func(f).module;
        let cx = self.ctx_for(module);
        let old_cost = self.m.func(f).cost;
        for attempt in 0..8 {
            let mut rng = self.rng.fork(attempt);
            let (body, cost) = regen_body(&self.m, &cx, f, &mut rng, false);
            if cost <= old_cost + 16 {
                self.fn_mut(f).body = body;
                return Some(format!("new body for leaf {desc}"));
            }
        }
        None
    }

    fn body_unchanged_result(&mut self) -> Option<String> {
        let fns = self.fns_where(|fd| fd.kind != FnKind::Printer);
        let fns: Vec<FnId> = fns.into_iter().filter(|f| !self.pinned(*f)).collect();
        for _ in 0..8 {
            let f = self.pick(&fns)?;
            let desc = self.fn_desc(f);
            match self.rng.below(3) {
                // A literal `v` becomes `(a + b)` with a + b = v.
                0 => {
                    let n = count_splittable_lits(&self.m.func(f).body);
                    if n == 0 {
                        continue;
                    }
                    let k = self.rng.index(n);
                    let mut i = 0;
                    self.fn_mut(f).body.walk_mut(&mut |e| {
                        if let Expr::Int(l) = e {
                            if splittable(l) {
                                if i == k {
                                    let a = l.value / 2;
                                    let mut la = l.clone();
                                    la.value = a;
                                    let mut lb = l.clone();
                                    lb.value = l.value - a;
                                    *e = Expr::Paren(Box::new(Expr::Binary(
                                        BinOp::Add,
                                        Box::new(Expr::Int(la)),
                                        Box::new(Expr::Int(lb)),
                                    )));
                                }
                                i += 1;
                            }
                        }
                    });
                    return Some(format!("split a literal into a sum in {desc}"));
                }
                // The integer tail `e` becomes `(e) ^ 0` (or `+ 0`, `| 0`).
                1 => {
                    let ret = self.m.ret_ty(f);
                    let Some(t) = ret.int() else { continue };
                    let tail_ok = self
                        .m
                        .func(f)
                        .body
                        .tail
                        .as_ref()
                        .is_some_and(|e| !diverges(e));
                    if !tail_ok {
                        continue;
                    }
                    let op = *self
                        .rng
                        .pick(&[BinOp::BitXor, BinOp::Add, BinOp::BitOr, BinOp::Sub]);
                    let fd = self.fn_mut(f);
                    let tail = fd.body.tail.take().expect("checked");
                    let zero = Expr::Int(IntLit {
                        value: 0,
                        ty: t,
                        suffix: false,
                        style: LitStyle::Dec,
                        free: false,
                    });
                    fd.body.tail = Some(Expr::Binary(
                        op,
                        Box::new(Expr::Paren(Box::new(tail))),
                        Box::new(zero),
                    ));
                    return Some(format!(
                        "appended a neutral operation to the result of {desc}"
                    ));
                }
                // Two adjacent independent `let`s swap.
                _ => {
                    let stmts = &self.m.func(f).body.stmts;
                    let cands: Vec<usize> = (0..stmts.len().saturating_sub(1))
                        .filter(|&i| independent_lets(&stmts[i], &stmts[i + 1]))
                        .collect();
                    let Some(i) = self.pick(&cands) else { continue };
                    self.fn_mut(f).body.stmts.swap(i, i + 1);
                    return Some(format!("swapped two independent statements in {desc}"));
                }
            }
        }
        None
    }

    // -----------------------------------------------------------------------------------
    // Signatures

    fn signature(&mut self) -> Option<String> {
        let fns = self.fns_where(|fd| fd.kind == FnKind::Normal);
        for _ in 0..6 {
            let f = self.pick(&fns)?;
            let r = match self.rng.below(4) {
                0 => self.add_param(f),
                1 => self.remove_param(f),
                2 => self.retype_param(f),
                _ => self.retype_return(f),
            };
            if r.is_some() {
                return r;
            }
        }
        None
    }

    fn add_param(&mut self, f: FnId) -> Option<String> {
        let t = *self.rng.pick(&IntTy::ALL);
        let (ty, te) = if self.rng.chance(20) {
            (Ty::Bool, TyExpr::Bool)
        } else {
            (Ty::Int(t), TyExpr::Int(t))
        };
        let name = self.fresh_local();
        let pos = self.rng.index(self.m.func(f).params.len() + 1);
        self.fn_mut(f).params.insert(
            pos,
            Param {
                name,
                mutable: false,
                ty: te,
            },
        );
        let v = self.rng.below(100);
        let arg = match ty {
            Ty::Bool => Expr::Bool(v & 1 == 0),
            _ => Expr::Int(IntLit {
                value: v,
                ty: t,
                suffix: false,
                style: LitStyle::Dec,
                free: true,
            }),
        };
        self.rewrite_exprs(|e| matches!(e, Expr::Call(c) if c.callee == f), &mut |e| {
            if let Expr::Call(c) = e {
                c.args.insert(pos, arg.clone());
            }
        });
        Some(format!(
            "added parameter {} to {}",
            local_name(name),
            self.fn_desc(f)
        ))
    }

    fn remove_param(&mut self, f: FnId) -> Option<String> {
        let fd = self.m.func(f);
        let unused: Vec<usize> = (0..fd.params.len())
            .filter(|&i| !uses_local(&fd.body, fd.params[i].name))
            .collect();
        let pos = self.pick(&unused)?;
        let name = local_name(self.m.func(f).params[pos].name).into_owned();
        self.fn_mut(f).params.remove(pos);
        self.rewrite_exprs(|e| matches!(e, Expr::Call(c) if c.callee == f), &mut |e| {
            if let Expr::Call(c) = e {
                c.args.remove(pos);
            }
        });
        Some(format!(
            "removed unused parameter {name} of {}",
            self.fn_desc(f)
        ))
    }

    fn retype_param(&mut self, f: FnId) -> Option<String> {
        let fd = self.m.func(f);
        let ints: Vec<(usize, IntTy)> = fd
            .params
            .iter()
            .enumerate()
            .filter_map(|(i, p)| self.m.canon(&p.ty).int().map(|t| (i, t)))
            .collect();
        let (pos, from) = self.pick(&ints)?;
        let to = other_int(&mut self.rng, from);
        let p = self.m.func(f).params[pos].clone();
        // The body sees the old type again through `let p = p as Old;`.
        let fd = self.fn_mut(f);
        fd.params[pos] = Param {
            name: p.name,
            mutable: false,
            ty: TyExpr::Int(to),
        };
        fd.body.stmts.insert(
            0,
            Stmt::Let {
                name: p.name,
                mutable: p.mutable,
                ty: None,
                init: Expr::Cast(Box::new(Expr::Local(p.name)), CastTy::Int(from)),
                doc: None,
            },
        );
        let tmp = self.fresh_local();
        self.rewrite_exprs(|e| matches!(e, Expr::Call(c) if c.callee == f), &mut |e| {
            if let Expr::Call(c) = e {
                let arg = std::mem::replace(&mut c.args[pos], Expr::Bool(false));
                c.args[pos] = cast_preserving(arg, from, to, tmp);
            }
        });
        Some(format!(
            "parameter {} of {} changed from {} to {}",
            local_name(p.name),
            self.fn_desc(f),
            from.name(),
            to.name()
        ))
    }

    fn retype_return(&mut self, f: FnId) -> Option<String> {
        let from = self.m.ret_ty(f).int()?;
        let to = other_int(&mut self.rng, from);
        let tmp = self.fresh_local();
        let fd = self.fn_mut(f);
        fd.ret = Some(TyExpr::Int(to));
        // Every `return e` and the tail convert to the new type.
        fd.body.walk_mut(&mut |e| {
            if let Expr::Return(Some(v)) = e {
                let old = std::mem::replace(&mut **v, Expr::Bool(false));
                **v = cast_preserving(old, from, to, tmp);
            }
        });
        if let Some(t) = fd.body.tail.take() {
            fd.body.tail = Some(cast_preserving(t, from, to, tmp));
        }
        self.rewrite_exprs(|e| matches!(e, Expr::Call(c) if c.callee == f), &mut |e| {
            let call = std::mem::replace(e, Expr::Bool(false));
            *e = Expr::Paren(Box::new(Expr::Cast(Box::new(call), CastTy::Int(from))));
        });
        Some(format!(
            "return type of {} changed from {} to {}",
            self.fn_desc(f),
            from.name(),
            to.name()
        ))
    }

    // -----------------------------------------------------------------------------------
    // Constants

    /// Live scalar integer constants that no type depends on.
    fn scalar_consts(&self) -> Vec<(ConstId, IntTy)> {
        self.m
            .live_consts()
            .filter(|c| !self.m.konst(*c).in_types)
            .filter_map(|c| self.m.canon(&self.m.konst(c).ty).int().map(|t| (c, t)))
            .collect()
    }

    fn const_desc(&self, c: ConstId) -> String {
        let cd = self.m.konst(c);
        format!(
            "`{}` in {}",
            cd.name,
            self.m.file_path(self.m.file_of(cd.module))
        )
    }

    fn const_value(&mut self) -> Option<String> {
        let cands = self.scalar_consts();
        for _ in 0..8 {
            let (c, t) = self.pick(&cands)?;
            let v = self.rng.range(0, 1000) as i128;
            let v = if t.signed() && self.rng.chance(30) {
                -v
            } else {
                v
            };
            let old_init = self.m.konst(c).init.clone();
            if self.m.konst(c).value == super::consteval::Val::Int(v, t) {
                continue;
            }
            self.const_mut(c).init = value_expr(t, v);
            if reevaluate_all(&mut self.m).is_ok() {
                return Some(format!("value of {} set to {v}", self.const_desc(c)));
            }
            self.const_mut(c).init = old_init;
            reevaluate_all(&mut self.m).expect("the old values evaluate");
        }
        None
    }

    fn const_type(&mut self) -> Option<String> {
        let cands = self.scalar_consts();
        for _ in 0..8 {
            let (c, from) = self.pick(&cands)?;
            let (v, _) = self.m.konst(c).value.as_int().expect("scalar");
            let fits: Vec<IntTy> = IntTy::ALL
                .iter()
                .copied()
                .filter(|t| *t != from && t.contains(v))
                .collect();
            let Some(to) = self.pick(&fits) else { continue };
            let saved = self.m.clone();
            let tmp = self.fresh_local();
            let cd = self.const_mut(c);
            cd.ty = TyExpr::Int(to);
            let init = std::mem::replace(&mut cd.init, Expr::Bool(false));
            cd.init = match init {
                Expr::Int(mut l) => {
                    l.ty = to;
                    Expr::Int(l)
                }
                other => cast_preserving(other, from, to, tmp),
            };
            // Uses see the old type through a cast.
            self.rewrite_exprs(|e| matches!(e, Expr::Const(k, _) if *k == c), &mut |e| {
                let old = std::mem::replace(e, Expr::Bool(false));
                *e = Expr::Cast(Box::new(old), CastTy::Int(from));
            });
            if reevaluate_all(&mut self.m).is_ok() {
                return Some(format!(
                    "type of {} changed from {} to {}",
                    self.const_desc(c),
                    from.name(),
                    to.name()
                ));
            }
            self.m = saved;
        }
        None
    }

    // -----------------------------------------------------------------------------------
    // Structs

    fn struct_field(&mut self) -> Option<String> {
        let n = self.m.structs.len();
        for _ in 0..8 {
            let s = StructId(self.rng.index(n.max(1)) as u32);
            if n == 0 {
                return None;
            }
            let saved = self.m.clone();
            let r = match self.rng.below(3) {
                0 => self.add_field(s),
                1 => self.remove_field(s),
                _ => self.retype_field(s),
            };
            if let Some(d) = r {
                if reevaluate_all(&mut self.m).is_ok() {
                    return Some(d);
                }
                self.m = saved;
            }
        }
        None
    }

    fn struct_desc(&self, s: StructId) -> String {
        let sd = self.m.strukt(s);
        format!(
            "`{}` in {}",
            sd.name,
            self.m.file_path(self.m.file_of(sd.module))
        )
    }

    fn add_field(&mut self, s: StructId) -> Option<String> {
        let next = self.m.strukt(s).next_field;
        let n = self.fresh();
        let name = format!("extra{n}");
        let t = *self.rng.pick(&IntTy::ALL);
        let id = FieldId(next);
        let st = self.struct_mut(s);
        st.next_field += 1;
        st.fields.push(FieldDef {
            id,
            name: name.clone(),
            is_pub: true,
            ty: TyExpr::Int(t),
            doc: None,
        });
        let v = self.rng.below(100);
        self.rewrite_exprs(|e| matches!(e, Expr::StructLit(l) if l.st == s), &mut |e| {
            if let Expr::StructLit(l) = e {
                l.fields.push(FieldInit {
                    field: id,
                    value: Expr::Int(IntLit {
                        value: v,
                        ty: t,
                        suffix: false,
                        style: LitStyle::Dec,
                        free: true,
                    }),
                    shorthand: false,
                });
            }
        });
        Some(format!(
            "added field {name}: {} to {}",
            t.name(),
            self.struct_desc(s)
        ))
    }

    fn remove_field(&mut self, s: StructId) -> Option<String> {
        let sd = self.m.strukt(s);
        if sd.fields.len() < 2 {
            return None;
        }
        let scalars: Vec<(FieldId, Ty)> = sd
            .fields
            .iter()
            .map(|f| (f.id, self.m.canon(&f.ty)))
            .filter(|(_, t)| matches!(t, Ty::Int(_) | Ty::Bool))
            .collect();
        if scalars.is_empty() {
            return None;
        }
        let (fid, fty) = self.rng.pick(&scalars).clone();
        let name = sd.field(fid).name.clone();
        let zero = typed_zero(&self.m, &fty);
        self.struct_mut(s).fields.retain(|f| f.id != fid);
        // Literals lose the field, reads become the zero value, writes keep only their value.
        self.rewrite_exprs(
            |e| {
                matches!(e, Expr::StructLit(l) if l.st == s)
                    || matches!(e, Expr::Field(_, st, f) if *st == s && *f == fid)
            },
            &mut |e| match e {
                Expr::StructLit(l) => l.fields.retain(|fi| fi.field != fid),
                _ => *e = zero.clone(),
            },
        );
        self.rewrite_assigns(s, fid, &mut |st| {
            if let Stmt::Assign { place, value, .. } = st {
                if place_has_field(place, s, fid) {
                    let v = std::mem::replace(value, Expr::Bool(false));
                    *st = Stmt::LetWild(v);
                }
            }
        });
        Some(format!("removed field {name} of {}", self.struct_desc(s)))
    }

    fn retype_field(&mut self, s: StructId) -> Option<String> {
        let sd = self.m.strukt(s);
        let ints: Vec<(FieldId, IntTy)> = sd
            .fields
            .iter()
            .filter_map(|f| self.m.canon(&f.ty).int().map(|t| (f.id, t)))
            .collect();
        let (fid, from) = self.pick(&ints)?;
        let to = other_int(&mut self.rng, from);
        let name = self.m.strukt(s).field(fid).name.clone();
        let tmp = self.fresh_local();
        self.struct_mut(s)
            .fields
            .iter_mut()
            .find(|f| f.id == fid)
            .expect("field")
            .ty = TyExpr::Int(to);
        self.rewrite_exprs(
            |e| {
                matches!(e, Expr::StructLit(l) if l.st == s)
                    || matches!(e, Expr::Field(_, st, f) if *st == s && *f == fid)
            },
            &mut |e| match e {
                Expr::StructLit(l) => {
                    for fi in l.fields.iter_mut().filter(|fi| fi.field == fid) {
                        let v = std::mem::replace(&mut fi.value, Expr::Bool(false));
                        fi.value = cast_preserving(v, from, to, tmp);
                        fi.shorthand = false;
                    }
                }
                _ => {
                    let old = std::mem::replace(e, Expr::Bool(false));
                    *e = Expr::Cast(Box::new(old), CastTy::Int(from));
                }
            },
        );
        self.rewrite_assigns(s, fid, &mut |st| {
            if let Stmt::Assign { place, op, value } = st {
                if place_ends_in_field(place, s, fid)
                    && !matches!(op, Some(BinOp::Shl | BinOp::Shr))
                {
                    let v = std::mem::replace(value, Expr::Bool(false));
                    *value = cast_preserving(v, from, to, tmp);
                }
            }
        });
        Some(format!(
            "field {name} of {} changed from {} to {}",
            self.struct_desc(s),
            from.name(),
            to.name()
        ))
    }

    // -----------------------------------------------------------------------------------
    // Adding and removing functions

    fn add_fn(&mut self) -> Option<String> {
        let module = ModId(self.rng.index(self.m.mods.len()) as u32);
        let cx = self.ctx_for(module);
        let id = FnId(self.m.fns.len() as u32);
        let n = self.fresh();
        let name = format!(
            "{}_e{n}",
            self.rng
                .pick(&["tweak", "extra", "probe", "adjust", "helper"])
        );
        let mut rng = self.rng.fork(n as u64);
        let mut bg = BodyGen::new(&self.m, &cx, &mut rng);
        let mut params = Vec::new();
        for _ in 0..bg.rng.range(0, 3) {
            let (_, te) = bg.random_ty(true);
            let l = bg.fresh_local();
            params.push(Param {
                name: l,
                mutable: false,
                ty: te,
            });
        }
        let ret = if bg.rng.chance(15) {
            None
        } else {
            Some(bg.random_ty(true).1)
        };
        drop(bg);
        self.m.fns.push(Arc::new(FnDef::declared(
            name.clone(),
            module,
            self.rng.chance(70),
            FnKind::Normal,
            params,
            ret,
        )));
        let (body, _) = regen_body(&self.m, &cx, id, &mut rng, true);
        let fd = self.fn_mut(id);
        fd.body = body;
        let md = self.module_mut(module);
        let pos = md.items.len();
        md.items.insert(pos, Item::Fn(id));
        Some(format!(
            "added `{name}` to {}",
            self.m.file_path(self.m.file_of(module))
        ))
    }

    fn remove_fn(&mut self) -> Option<String> {
        let fns = self.fns_where(|_| true);
        let fns: Vec<FnId> = fns.into_iter().filter(|f| !self.pinned(*f)).collect();
        let callers_of = |m: &Model, f: FnId| -> Vec<FnId> {
            m.live_fns()
                .filter(|g| *g != f)
                .filter(|g| {
                    let mut hit = false;
                    m.func(*g)
                        .body
                        .walk(&mut |e| hit |= matches!(e, Expr::Call(c) if c.callee == f));
                    hit
                })
                .collect()
        };
        for _ in 0..8 {
            let f = self.pick(&fns)?;
            let callers = callers_of(&self.m, f);
            // A call becomes a simple value of the return type; that needs the value to be
            // writable in each caller's module.
            let ret = self.m.ret_ty(f);
            let ok = callers.iter().all(|g| {
                ModCtx::for_module(&self.m, self.m.func(*g).module, &[]).producible(&ret)
                    || !matches!(ret, Ty::Struct(_) | Ty::Array(..))
            });
            if !ok || (!callers.is_empty() && self.rng.chance(30)) {
                continue;
            }
            let desc = self.fn_desc(f);
            for g in &callers {
                let zero = typed_zero(&self.m, &ret);
                self.fn_mut(*g).body.walk_mut(&mut |e| {
                    if matches!(e, Expr::Call(c) if c.callee == f) {
                        *e = zero.clone();
                    }
                });
            }
            let module = self.m.func(f).module;
            self.fn_mut(f).removed = true;
            self.module_mut(module)
                .items
                .retain(|i| !matches!(i, Item::Fn(x) if *x == f));
            // Imports and re-exports of it go too.
            let importers: Vec<ModId> = (0..self.m.mods.len() as u32)
                .map(ModId)
                .filter(|md| {
                    self.m
                        .module(*md)
                        .imports
                        .iter()
                        .any(|i| i.target == ItemKey::Fn(f))
                })
                .collect();
            for md in importers {
                self.module_mut(md)
                    .imports
                    .retain(|i| i.target != ItemKey::Fn(f));
            }
            self.m.rebuild_reexports();
            return Some(if callers.is_empty() {
                format!("removed unused {desc}")
            } else {
                format!(
                    "removed {desc} and its calls in {} functions",
                    callers.len()
                )
            });
        }
        None
    }

    // -----------------------------------------------------------------------------------
    // Errors

    fn introduce_error(&mut self) -> Option<String> {
        if self.m.pending_error.is_some() {
            return None;
        }
        let fns: Vec<FnId> = self.m.live_fns().collect();
        let f = self.pick(&fns)?;
        let n = self.fresh();
        let (text, what) = match self.rng.below(4) {
            0 => (format!("let broken{n}: bool = {n}i32;"), "type mismatch"),
            1 => (
                format!("let broken{n} = undefined_value_{n} + 1;"),
                "unresolved name",
            ),
            2 => (
                format!("let broken{n} = {n}u64;\nbroken{n} = 2;"),
                "assignment to an immutable variable",
            ),
            _ => (
                format!("let broken{n}: i32 = {n}i64;"),
                "integer type mismatch",
            ),
        };
        self.fn_mut(f).body.stmts.insert(0, Stmt::Raw(text));
        let description = format!("{what} in {}", self.fn_desc(f));
        self.m.pending_error = Some(PendingError {
            host: f,
            description: description.clone(),
        });
        Some(description)
    }

    fn fix_error(&mut self) -> Option<String> {
        let pe = self.m.pending_error.take()?;
        self.fn_mut(pe.host)
            .body
            .stmts
            .retain(|s| !matches!(s, Stmt::Raw(_)));
        Some(format!("fixed: {}", pe.description))
    }
}

/// A new body for `f` (its signature unchanged), and its cost.
pub(crate) fn regen_body(
    m: &Model,
    cx: &ModCtx,
    f: FnId,
    rng: &mut Rng,
    allow_calls: bool,
) -> (Block, u64) {
    let fd = m.func(f);
    let ret = m.ret_ty(f);
    let mut bg = BodyGen::new(m, cx, rng);
    bg.allow_calls = allow_calls;
    bg.this_fn = Some(f);
    bg.ret = Some(ret.clone());
    bg.budget = bg.rng.range(3, 9) as i64;
    for p in &fd.params {
        bg.bind(p.name, m.canon(&p.ty), p.mutable, true);
    }
    let body = bg.fn_body(&ret);
    (body, bg.cost.max(1))
}

/// A simple value of `ty` whose type does not depend on the context (`0u64`, `false`, …).
fn typed_zero(m: &Model, ty: &Ty) -> Expr {
    let mut e = zero_value(m, ty);
    if let Expr::Int(l) = &mut e {
        l.suffix = true;
    }
    e
}

fn has_call(b: &Block) -> bool {
    let mut hit = false;
    b.walk(&mut |e| hit |= matches!(e, Expr::Call(_)));
    hit
}

fn count_free_lits(b: &Block) -> usize {
    let mut n = 0;
    b.walk(&mut |e| n += matches!(e, Expr::Int(l) if l.free) as usize);
    n
}

/// A literal that can be written as a sum of two literals of the same type.
fn splittable(l: &IntLit) -> bool {
    l.value >= 2 && (l.value as i128) <= l.ty.max()
}

fn count_splittable_lits(b: &Block) -> usize {
    let mut n = 0;
    b.walk(&mut |e| n += matches!(e, Expr::Int(l) if splittable(l)) as usize);
    n
}

/// Does evaluating `e` certainly not produce a value (`return`, `loop` …)?
fn diverges(e: &Expr) -> bool {
    matches!(
        e,
        Expr::Return(_) | Expr::Break(..) | Expr::Continue(_) | Expr::Loop(..)
    )
}

fn uses_local(b: &Block, l: Local) -> bool {
    let mut hit = false;
    b.walk(&mut |e| hit |= matches!(e, Expr::Local(x) if *x == l));
    // Assignments name their root variable outside of any expression.
    let mut b2 = b.clone();
    b2.walk_blocks_mut(&mut |blk| {
        for s in &blk.stmts {
            if let Stmt::Assign { place, .. } = s {
                hit |= place.root() == l;
            }
        }
    });
    hit
}

/// Two `let` statements whose order does not matter: neither reads the other's name, and
/// they bind different names.
fn independent_lets(a: &Stmt, b: &Stmt) -> bool {
    let (
        Stmt::Let {
            name: na, init: ia, ..
        },
        Stmt::Let {
            name: nb, init: ib, ..
        },
    ) = (a, b)
    else {
        return false;
    };
    if na == nb {
        return false;
    }
    let reads = |e: &Expr, l: Local| {
        let mut hit = false;
        e.walk(&mut |x| hit |= matches!(x, Expr::Local(y) if *y == l));
        hit
    };
    // Blocks inside the initializers could shadow or assign; keep to simple initializers.
    let simple = |e: &Expr| {
        let mut ok = true;
        e.walk(&mut |x| {
            ok &= !x.is_block_like()
                && !matches!(x, Expr::Return(_) | Expr::Break(..) | Expr::Continue(_))
        });
        ok
    };
    !reads(ia, *nb) && !reads(ib, *na) && simple(ia) && simple(ib)
}

fn assigns_field(b: &Block, s: StructId, f: FieldId) -> bool {
    let mut hit = false;
    let mut b2 = b.clone();
    b2.walk_blocks_mut(&mut |blk| {
        for st in &blk.stmts {
            if let Stmt::Assign { place, .. } = st {
                hit |= place_has_field(place, s, f);
            }
        }
    });
    hit
}

fn place_has_field(p: &Place, s: StructId, f: FieldId) -> bool {
    match p {
        Place::Local(_) => false,
        Place::Field(inner, st, fi) => (*st == s && *fi == f) || place_has_field(inner, s, f),
        Place::Index(inner, _) => place_has_field(inner, s, f),
    }
}

fn place_ends_in_field(p: &Place, s: StructId, f: FieldId) -> bool {
    matches!(p, Place::Field(_, st, fi) if *st == s && *fi == f)
}

fn other_int(rng: &mut Rng, t: IntTy) -> IntTy {
    let others: Vec<IntTy> = IntTy::ALL.iter().copied().filter(|x| *x != t).collect();
    *rng.pick(&others)
}

/// The literal expression for `v` of type `t`.
pub(crate) fn value_expr(t: IntTy, v: i128) -> Expr {
    let lit = |x: u64| {
        Expr::Int(IntLit {
            value: x,
            ty: t,
            suffix: false,
            style: LitStyle::Dec,
            free: true,
        })
    };
    if v < 0 {
        Expr::Unary(UnOp::Neg, Box::new(lit(v.unsigned_abs() as u64)))
    } else {
        lit(v as u64)
    }
}

/// `e as to`, where `e` keeps the type `from` it had in its old (typed) context.
///
/// The operand of `as` takes the target as its expected type, and binary operands are not
/// unified with a cast's target, so `e` is cast directly only when its type does not come
/// from the context (a variable, call, field, …, or a literal that gets a suffix);
/// otherwise it is pinned first: `{ let tmp: from = e; tmp } as to`.
pub(crate) fn cast_preserving(mut e: Expr, from: IntTy, to: IntTy, tmp: Local) -> Expr {
    fn spine_typed(e: &Expr) -> bool {
        match e {
            Expr::Paren(x) | Expr::Unary(_, x) => spine_typed(x),
            Expr::Local(_)
            | Expr::Const(..)
            | Expr::Field(..)
            | Expr::Index(..)
            | Expr::Call(_)
            | Expr::Assoc { .. }
            | Expr::Cast(..)
            | Expr::Int(_) => true,
            _ => false,
        }
    }
    if spine_typed(&e) {
        suffix_spine(&mut e);
        return Expr::Cast(Box::new(e), CastTy::Int(to));
    }
    let pinned = Block {
        stmts: vec![Stmt::Let {
            name: tmp,
            mutable: false,
            ty: Some(TyExpr::Int(from)),
            init: e,
            doc: None,
        }],
        tail: Some(Expr::Local(tmp)),
    };
    Expr::Cast(Box::new(Expr::Block(Box::new(pinned))), CastTy::Int(to))
}

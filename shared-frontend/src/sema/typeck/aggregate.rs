//! Calls, field access, indexing, struct and array literals, and `println!`.

use std::sync::Arc;

use super::expr::{Checker, Expect};
use super::infer::{ITy, VarKind};
use super::sig;
use crate::diag::Diagnostic;
use crate::intern::Symbol;
use crate::sema::def::{DefId, DefKind, Namespace, Res};
use crate::sema::thir::{Bits64, TExprId, TExprKind};
use crate::sema::ty::{FnSig, IntTy, Ty};
use crate::span::Span;
use crate::syntax::ast::{ExprId, ExprKind, FieldInit, FmtPiece, Ident, PathRef};

impl Checker<'_> {
    pub(super) fn check_call(&mut self, callee: ExprId, args: &[ExprId], span: Span) -> TExprId {
        enum Callee {
            Fn(DefId, Arc<FnSig>),
            NotFn(String),
            Failed,
        }
        let arena = self.arena;
        let mut callee_e = callee;
        while let ExprKind::Paren(inner) = arena[callee_e].kind {
            callee_e = inner;
        }
        let callee_span = arena[callee_e].span;
        let c = match &arena[callee_e].kind {
            ExprKind::Path(path) => {
                let path = arena.path(path);
                let local = Self::single_name(path).and_then(|n| self.buf.scopes.lookup(n));
                if let Some(local) = local {
                    let ty = self.buf.local_tys[local.0 as usize];
                    Callee::NotFn(self.display(&ty))
                } else if Self::single_name(path)
                    .is_some_and(|n| self.outer_local_used(n, callee_span))
                {
                    Callee::Failed
                } else {
                    match self.env.resolve_path(self.module, path, Namespace::Value) {
                        Ok(Res::Def(DefKind::Fn, def)) => match self.env.fn_sig(def) {
                            Ok(sig) => Callee::Fn(def, sig),
                            Err(_) => Callee::Failed,
                        },
                        Ok(Res::Def(DefKind::Const, def)) => match self.env.const_ty(def) {
                            Ok(t) => {
                                let t = self.buf.infer.import_ty(&t);
                                Callee::NotFn(self.display(&t))
                            }
                            Err(_) => Callee::Failed,
                        },
                        Ok(Res::IntConst(t, _)) => Callee::NotFn(t.name().to_string()),
                        Ok(res) => {
                            let what = sig::res_descr(self.env, res);
                            self.report(
                                Diagnostic::error(
                                    format!("expected function, found {what}"),
                                    callee_span,
                                )
                                .with_code("E0423"),
                            );
                            Callee::Failed
                        }
                        Err(d) => {
                            let d = sig::other_primitive(path)
                                .unwrap_or_else(|| sig::reword_not_found(d, "function", None));
                            self.report(d);
                            Callee::Failed
                        }
                    }
                }
            }
            _ => {
                let id = self.check_expr(callee_e, &Expect::None);
                match self.resolved_ty(id) {
                    ITy::Error => Callee::Failed,
                    t => Callee::NotFn(self.display(&t)),
                }
            }
        };
        match c {
            Callee::Fn(def, sig) => {
                if self.in_const {
                    let name = self.env.def_name(def);
                    self.report(
                        Diagnostic::error(
                            format!("cannot call non-const function `{name}` in constants"),
                            span,
                        )
                        .with_code("E0015")
                        .with_note(
                            "calls in constants are limited to constant functions, tuple \
                             structs and tuple variants",
                        ),
                    );
                }
                if args.len() != sig.params.len() {
                    let n = sig.params.len();
                    let m = args.len();
                    self.report(
                        Diagnostic::error(
                            format!(
                                "this function takes {n} argument{} but {m} argument{} {} \
                                 supplied",
                                if n == 1 { "" } else { "s" },
                                if m == 1 { "" } else { "s" },
                                if m == 1 { "was" } else { "were" },
                            ),
                            callee_span,
                        )
                        .with_code("E0061"),
                    );
                }
                let base = self.buf.expr_stack.len();
                for (i, &a) in args.iter().enumerate() {
                    let id = match sig.params.get(i) {
                        Some(p) => {
                            let p = self.buf.infer.import_ty(p);
                            self.check_expr_coercible(a, &p)
                        }
                        None => self.check_expr(a, &Expect::None),
                    };
                    self.buf.expr_stack.push(id);
                }
                let targs = self.close_exprs(base);
                let ty = self.buf.infer.import_ty(&sig.ret);
                let callee = self.lists.push_def(def);
                let id = self.alloc(
                    TExprKind::Call {
                        callee,
                        args: targs,
                    },
                    ty,
                    span,
                );
                let mentions_struct = sig.params.iter().chain([&sig.ret]).any(|t| {
                    let mut t = t;
                    while let Ty::Array(elem, _) = t {
                        t = elem;
                    }
                    matches!(t, Ty::Struct(_))
                });
                if mentions_struct {
                    self.buf.struct_calls.push((id, sig, callee_span));
                }
                id
            }
            Callee::NotFn(found) => {
                self.report(
                    Diagnostic::error(format!("expected function, found `{found}`"), callee_span)
                        .with_code("E0618")
                        .with_label_message("call expression requires function"),
                );
                for &a in args {
                    self.check_expr(a, &Expect::None);
                }
                self.error_node(span)
            }
            Callee::Failed => {
                for &a in args {
                    self.check_expr(a, &Expect::None);
                }
                self.error_node(span)
            }
        }
    }

    pub(super) fn check_field(&mut self, base: ExprId, name: Ident, span: Span) -> TExprId {
        let b = self.check_expr(base, &Expect::None);
        let bt = self.resolved_ty(b);
        let f = name.name;
        match bt {
            ITy::Struct(id) => {
                let def = self.buf.infer.struct_def(id);
                let Ok(fields) = self.env.struct_fields(def) else {
                    return self.error_node(span);
                };
                let Some(index) = fields.index_of(f) else {
                    let t = self.env.def_name(def);
                    self.report(
                        Diagnostic::error(format!("no field `{f}` on type `{t}`"), name.span)
                            .with_code("E0609")
                            .with_label_message("unknown field"),
                    );
                    return self.error_node(span);
                };
                let field = &fields.fields[index];
                if !self.env.is_accessible(field.vis, self.module) {
                    let t = self.env.def_name(def);
                    self.report(
                        Diagnostic::error(
                            format!("field `{f}` of struct `{t}` is private"),
                            name.span,
                        )
                        .with_code("E0616")
                        .with_label_message("private field"),
                    );
                }
                let ty = self.buf.infer.import_ty(&field.ty);
                self.alloc(
                    TExprKind::Field {
                        base: b,
                        index: index as u32,
                    },
                    ty,
                    span,
                )
            }
            ITy::Error => self.error_node(span),
            ITy::Var(_) if !self.buf.infer.is_integral(&bt) => {
                self.annotations_needed(self.span_of(b));
                self.error_node(span)
            }
            ITy::Int(_) | ITy::Var(_) | ITy::Bool => {
                let t = self.display(&bt);
                self.report(
                    Diagnostic::error(
                        format!("`{t}` is a primitive type and therefore doesn't have fields"),
                        name.span,
                    )
                    .with_code("E0610"),
                );
                self.error_node(span)
            }
            ITy::Unit | ITy::Never | ITy::Array(..) => {
                let t = self.display(&bt);
                self.report(
                    Diagnostic::error(format!("no field `{f}` on type `{t}`"), name.span)
                        .with_code("E0609")
                        .with_label_message("unknown field"),
                );
                self.error_node(span)
            }
        }
    }

    pub(super) fn annotations_needed(&mut self, span: Span) {
        self.report(
            Diagnostic::error("type annotations needed", span)
                .with_code("E0282")
                .with_label_message("type must be known at this point"),
        );
    }

    pub(super) fn check_index(&mut self, base: ExprId, index: ExprId, span: Span) -> TExprId {
        let b = self.check_expr(base, &Expect::None);
        let i = self.check_expr(index, &Expect::None);
        match self.resolved_ty(b) {
            ITy::Array(array) => {
                let elem = self.buf.infer.array_parts(array).0;
                let it = self.resolved_ty(i);
                let usize_ty = ITy::Int(IntTy::Usize);
                let i = if self.buf.infer.is_never(&it) {
                    self.never_to_any(i, usize_ty)
                } else {
                    let ok = match &it {
                        ITy::Int(IntTy::Usize) | ITy::Error => true,
                        ITy::Var(_) if self.buf.infer.is_integral(&it) => {
                            self.buf.infer.unify(&it, &usize_ty)
                        }
                        _ => false,
                    };
                    if !ok {
                        let e = self.display(&elem);
                        let t = self.display(&it);
                        let ispan = self.span_of(i);
                        self.report(
                            Diagnostic::error(
                                format!("the type `[{e}]` cannot be indexed by `{t}`"),
                                ispan,
                            )
                            .with_code("E0277")
                            .with_label_message("slice indices are of type `usize`"),
                        );
                    }
                    i
                };
                self.alloc(TExprKind::Index { base: b, index: i }, elem, span)
            }
            ITy::Error => self.error_node(span),
            bt @ ITy::Var(_) if !self.buf.infer.is_integral(&bt) => {
                self.annotations_needed(self.span_of(b));
                self.error_node(span)
            }
            bt => {
                let t = self.display(&bt);
                self.report(
                    Diagnostic::error(format!("cannot index into a value of type `{t}`"), span)
                        .with_code("E0608"),
                );
                self.error_node(span)
            }
        }
    }

    pub(super) fn check_struct_lit(
        &mut self,
        path: PathRef<'_>,
        fields: &[FieldInit],
        span: Span,
    ) -> TExprId {
        let def = match self.env.resolve_path(self.module, path, Namespace::Type) {
            Ok(Res::Def(DefKind::Struct, def)) => Some(def),
            Ok(Res::Def(DefKind::TypeAlias, alias)) => match self.env.alias_ty(alias) {
                Ok(Ty::Struct(def)) => Some(def),
                Ok(Ty::Error) | Err(_) => None,
                Ok(t) => {
                    let t = self.buf.infer.import_ty(&t);
                    let t = self.display(&t);
                    self.report(
                        Diagnostic::error(
                            format!("expected struct, variant or union type, found `{t}`"),
                            path.span,
                        )
                        .with_code("E0071")
                        .with_label_message("not a struct"),
                    );
                    None
                }
            },
            Ok(res) => {
                let what = sig::res_descr(self.env, res);
                self.report(
                    Diagnostic::error(
                        format!("expected struct, variant or union type, found {what}"),
                        path.span,
                    )
                    .with_code("E0574")
                    .with_label_message("not a struct"),
                );
                None
            }
            Err(d) => {
                let d = sig::other_primitive(path).unwrap_or_else(|| {
                    sig::reword_not_found(d, "struct, variant or union type", Some("E0422"))
                });
                self.report(d);
                None
            }
        };
        let sf = def.and_then(|d| self.env.struct_fields(d).ok().map(|f| (d, f)));
        let Some((def, sf)) = sf else {
            for f in fields {
                self.check_expr(f.value, &Expect::None);
            }
            return self.error_node(span);
        };
        let mut seen = FieldSet::new(sf.fields.len());
        let base = self.buf.field_stack.len();
        let mut field_errors = false;
        for f in fields {
            let name = f.name.name;
            match sf.index_of(name) {
                Some(i) => {
                    let field = &sf.fields[i];
                    let fty = self.buf.infer.import_ty(&field.ty);
                    let id = self.check_expr_coercible(f.value, &fty);
                    if !self.env.is_accessible(field.vis, self.module) {
                        let s = self.env.def_name(def);
                        self.report(
                            Diagnostic::error(
                                format!("field `{name}` of struct `{s}` is private"),
                                f.name.span,
                            )
                            .with_code("E0451")
                            .with_label_message("private field"),
                        );
                    }
                    if !seen.insert(i) {
                        field_errors = true;
                        self.report(
                            Diagnostic::error(
                                format!("field `{name}` specified more than once"),
                                f.name.span,
                            )
                            .with_code("E0062")
                            .with_label_message("used more than once"),
                        );
                    } else {
                        self.buf.field_stack.push((i as u32, id));
                    }
                }
                None => {
                    field_errors = true;
                    let s = self.env.def_name(def);
                    self.report(
                        Diagnostic::error(
                            format!("struct `{s}` has no field named `{name}`"),
                            f.name.span,
                        )
                        .with_code("E0560")
                        .with_label_message("unknown field"),
                    );
                    self.check_expr(f.value, &Expect::None);
                }
            }
        }
        let out = self.close_fields(base);
        if !field_errors && out.len() < sf.fields.len() {
            let missing: Vec<Symbol> = sf
                .fields
                .iter()
                .enumerate()
                .filter(|&(i, _)| !seen.contains(i))
                .map(|(_, f)| f.name)
                .collect();
            let s = self.env.def_name(def);
            let list = missing_list(&missing);
            let plural = if missing.len() == 1 { "" } else { "s" };
            self.report(
                Diagnostic::error(
                    format!("missing field{plural} {list} in initializer of `{s}`"),
                    path.span,
                )
                .with_code("E0063")
                .with_label_message(format!("missing {list}")),
            );
        }
        let ty = self.buf.infer.struct_ty(def);
        let def = self.lists.push_def(def);
        self.alloc(TExprKind::StructLit { def, fields: out }, ty, span)
    }

    pub(super) fn check_array(&mut self, elems: &[ExprId], span: Span, expect: &Expect) -> TExprId {
        let elem_ty = match expect.to_option(&mut self.buf.infer) {
            Some(ITy::Array(a)) => self.buf.infer.array_parts(a).0,
            _ => self.buf.infer.new_var(VarKind::General, span),
        };
        let base = self.buf.expr_stack.len();
        for &e in elems {
            let id = self.check_expr_coercible(e, &elem_ty);
            self.buf.expr_stack.push(id);
        }
        let ids = self.close_exprs(base);
        let ty = self.buf.infer.array(elem_ty, elems.len() as u64);
        let id = self.alloc(TExprKind::Array(ids), ty, span);
        self.buf.array_exprs.push(id);
        id
    }

    pub(super) fn check_repeat(
        &mut self,
        value: ExprId,
        count: ExprId,
        span: Span,
        expect: &Expect,
    ) -> TExprId {
        let count = {
            let mut diags = Vec::new();
            let n = sig::eval_array_len(&self.lower_cx(), count, &mut diags);
            self.diags.append(&mut diags);
            n
        };
        let (value, elem) = match expect.to_option(&mut self.buf.infer) {
            Some(ITy::Array(a)) => {
                let e = self.buf.infer.array_parts(a).0;
                (self.check_expr_coercible(value, &e), e)
            }
            _ => {
                let id = self.check_expr(value, &Expect::None);
                let id = self.never_to_fresh_var(id);
                (id, self.ty_of(id))
            }
        };
        match count {
            Some(count) => {
                let ty = self.buf.infer.array(elem, count);
                let count = Bits64::new(count);
                let id = self.alloc(TExprKind::Repeat { value, count }, ty, span);
                self.buf.array_exprs.push(id);
                id
            }
            None => self.error_node(span),
        }
    }

    /// `println!`: each argument an integer or `bool`. (The parser matched the arguments
    /// with the holes.)
    pub(super) fn check_println(
        &mut self,
        pieces: &[FmtPiece],
        args: &[ExprId],
        span: Span,
    ) -> TExprId {
        if self.in_const {
            self.report(
                Diagnostic::error(
                    "cannot call non-const function `std::io::_print` in constants",
                    span,
                )
                .with_code("E0015"),
            );
        }
        let base = self.buf.expr_stack.len();
        for &a in args {
            let arg_span = self.arena[a].span;
            if matches!(self.arena[a].kind, ExprKind::Assign(..)) {
                // rustc reads `name = value` there as a named argument; the parser
                // reports it as unsupported.
                let id = self.error_node(arg_span);
                self.buf.expr_stack.push(id);
                continue;
            }
            self.in_println += 1;
            let id = self.check_expr(a, &Expect::None);
            self.in_println -= 1;
            let t = self.resolved_ty(id);
            let id = match t {
                ITy::Int(_) | ITy::Bool | ITy::Error => id,
                ITy::Never => self.never_to_any(id, ITy::Int(IntTy::I32)),
                ITy::Var(_) if self.buf.infer.is_integral(&t) => id,
                ITy::Var(_) => {
                    self.annotations_needed(arg_span);
                    id
                }
                ITy::Unit | ITy::Struct(_) | ITy::Array(..) => {
                    let t = self.display(&t);
                    self.report(
                        Diagnostic::error(
                            format!("`{t}` doesn't implement `std::fmt::Display`"),
                            arg_span,
                        )
                        .with_code("E0277")
                        .with_label_message(format!(
                            "`{t}` cannot be formatted with the default formatter"
                        )),
                    );
                    id
                }
            };
            self.buf.expr_stack.push(id);
        }
        let targs = self.close_exprs(base);
        let pieces = self.lists.push_pieces(Arc::from(pieces));
        self.alloc(
            TExprKind::Println {
                pieces,
                args: targs,
            },
            ITy::Unit,
            span,
        )
    }
}

/// rustc's list of missing fields: `` `a` ``, `` `a` and `b` ``, `` `a`, `b` and `c` ``,
/// `` `a`, `b`, `c` and 2 other fields ``.
fn missing_list(names: &[Symbol]) -> String {
    let quoted = |n: &Symbol| format!("`{n}`");
    match names {
        [] => String::new(),
        [a] => quoted(a),
        _ if names.len() <= 3 => {
            let (last, init) = names.split_last().unwrap_or((&names[0], &[]));
            let init: Vec<String> = init.iter().map(quoted).collect();
            format!("{} and {}", init.join(", "), quoted(last))
        }
        _ => {
            let first: Vec<String> = names[..3].iter().map(quoted).collect();
            let rest = names.len() - 3;
            format!(
                "{} and {rest} other field{}",
                first.join(", "),
                if rest == 1 { "" } else { "s" }
            )
        }
    }
}

/// The fields a struct literal gave: a bit each, in one word unless the struct is huge.
struct FieldSet {
    word: u64,
    big: Vec<bool>,
}

impl FieldSet {
    fn new(fields: usize) -> FieldSet {
        FieldSet {
            word: 0,
            big: if fields > 64 {
                vec![false; fields]
            } else {
                Vec::new()
            },
        }
    }

    fn contains(&self, i: usize) -> bool {
        match self.big.get(i) {
            Some(&b) => b,
            None => self.word >> i & 1 != 0,
        }
    }

    /// Adds field `i`; `false` if it was there already.
    fn insert(&mut self, i: usize) -> bool {
        let was = self.contains(i);
        match self.big.get_mut(i) {
            Some(b) => *b = true,
            None => self.word |= 1 << i,
        }
        !was
    }
}

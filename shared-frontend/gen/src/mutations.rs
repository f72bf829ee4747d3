//! Ill-formed programs: a valid program with one change that rustc rejects (type errors,
//! unresolved names, privacy violations, duplicates, mutability, const evaluation errors,
//! out-of-range literals, arity, missing fields, parse errors, missing module files, …).
//!
//! Every mutation is an error whatever the surrounding program looks like: snippets are
//! self-contained (fresh names) and are inserted at the start of a body, where they are
//! always reachable; structural mutations (dropping a field of a literal, adding an
//! argument) break a rule unconditionally.

use super::build::int;
use super::edits::Editor;
use super::model::*;
use super::{Program, SourceFile};

/// An ill-formed variant of a program.
#[derive(Clone, Debug)]
pub struct Mutation {
    pub kind: MutationKind,
    /// `kind: what was changed where`.
    pub description: String,
    pub program: Program,
}

/// The kinds of ill-formed mutation, each named after the rule the mutated program breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MutationKind {
    /// A value of one type where another is expected (`let x: bool = 1i32;`).
    TypeMismatch,
    /// A function of another module named without a path, or a name defined nowhere.
    UnresolvedName,
    /// A function named by a `crate::` path that is not visible from the use.
    PrivateItem,
    /// A struct literal outside the struct's module that sets a private field.
    PrivateField,
    /// `pub use` of a private function.
    PrivateReexport,
    /// A second item with the name of an existing one in the same module.
    DuplicateItem,
    /// An assignment to an immutable variable or parameter.
    ImmutableAssignment,
    /// Arithmetic overflow in a constant.
    ConstOverflow,
    /// Division or remainder by zero (or `MIN / -1`) in a constant.
    ConstDivByZero,
    /// An array index out of bounds in a constant.
    ConstIndexOutOfBounds,
    /// A shift by the bit width or more (or by a negative amount) in a constant.
    ConstShiftOverflow,
    /// A constant whose value depends on itself.
    ConstCycle,
    /// An integer literal out of its type's range.
    LiteralOutOfRange,
    /// A call with one argument too many or too few.
    WrongArgCount,
    /// A struct literal without one of its fields.
    MissingField,
    /// Chained comparisons (`a < b < c`).
    ComparisonChain,
    /// `break` with a value inside `while` or `for`.
    BreakValueInWhile,
    /// Negation of an unsigned integer.
    NegateUnsigned,
    /// A binary operator with operands of different types.
    MismatchedOperands,
    /// A value-returning function that can end without a value.
    MissingTail,
    /// `if` without `else` used as a value.
    IfWithoutElseValue,
    /// A call of a value that is not a function.
    CallNonFunction,
    /// `let K = …;` where `K` is a constant in scope.
    LetNamedLikeConst,
    /// An index that is not a `usize`.
    IndexNotUsize,
    /// A cast that `as` does not allow.
    InvalidCast,
    /// An array of the wrong length for its type.
    ArrayLengthMismatch,
    /// `break` or `continue` without a matching loop.
    BreakOutsideLoop,
    /// A syntax error.
    ParseError,
    /// A field access on an integer.
    FieldOfPrimitive,
    /// A module file deleted.
    MissingModuleFile,
    /// A module file added next to an existing one (`a/b.rs` and `a/b/mod.rs`).
    AmbiguousModuleFile,
    /// A value of a private type, returned by a public function, used outside its module.
    PrivateTypeInSignature,
    /// `return` of a value of the wrong type.
    WrongReturnType,
    /// A function call or `for` loop in a constant.
    CallInConst,
    /// The same name bound twice in a parameter list, a struct or a struct literal.
    DuplicateBinding,
    /// A type name defined nowhere.
    UnknownType,
}

impl MutationKind {
    /// Every kind, in the order `seed % ALL.len()` selects them.
    pub const ALL: &'static [MutationKind] = &[
        MutationKind::TypeMismatch,
        MutationKind::UnresolvedName,
        MutationKind::PrivateItem,
        MutationKind::PrivateField,
        MutationKind::PrivateReexport,
        MutationKind::DuplicateItem,
        MutationKind::ImmutableAssignment,
        MutationKind::ConstOverflow,
        MutationKind::ConstDivByZero,
        MutationKind::ConstIndexOutOfBounds,
        MutationKind::ConstShiftOverflow,
        MutationKind::ConstCycle,
        MutationKind::LiteralOutOfRange,
        MutationKind::WrongArgCount,
        MutationKind::MissingField,
        MutationKind::ComparisonChain,
        MutationKind::BreakValueInWhile,
        MutationKind::NegateUnsigned,
        MutationKind::MismatchedOperands,
        MutationKind::MissingTail,
        MutationKind::IfWithoutElseValue,
        MutationKind::CallNonFunction,
        MutationKind::LetNamedLikeConst,
        MutationKind::IndexNotUsize,
        MutationKind::InvalidCast,
        MutationKind::ArrayLengthMismatch,
        MutationKind::BreakOutsideLoop,
        MutationKind::ParseError,
        MutationKind::FieldOfPrimitive,
        MutationKind::MissingModuleFile,
        MutationKind::AmbiguousModuleFile,
        MutationKind::PrivateTypeInSignature,
        MutationKind::WrongReturnType,
        MutationKind::CallInConst,
        MutationKind::DuplicateBinding,
        MutationKind::UnknownType,
    ];

    /// The kind's name, the prefix of [`Mutation::description`].
    pub fn name(self) -> &'static str {
        match self {
            MutationKind::TypeMismatch => "type-mismatch",
            MutationKind::UnresolvedName => "unresolved-name",
            MutationKind::PrivateItem => "private-item",
            MutationKind::PrivateField => "private-field",
            MutationKind::PrivateReexport => "private-reexport",
            MutationKind::DuplicateItem => "duplicate-item",
            MutationKind::ImmutableAssignment => "immutable-assignment",
            MutationKind::ConstOverflow => "const-overflow",
            MutationKind::ConstDivByZero => "const-div-by-zero",
            MutationKind::ConstIndexOutOfBounds => "const-index-out-of-bounds",
            MutationKind::ConstShiftOverflow => "const-shift-overflow",
            MutationKind::ConstCycle => "const-cycle",
            MutationKind::LiteralOutOfRange => "literal-out-of-range",
            MutationKind::WrongArgCount => "wrong-arg-count",
            MutationKind::MissingField => "missing-field",
            MutationKind::ComparisonChain => "comparison-chain",
            MutationKind::BreakValueInWhile => "break-value-in-while",
            MutationKind::NegateUnsigned => "negate-unsigned",
            MutationKind::MismatchedOperands => "mismatched-operands",
            MutationKind::MissingTail => "missing-tail",
            MutationKind::IfWithoutElseValue => "if-without-else-value",
            MutationKind::CallNonFunction => "call-non-function",
            MutationKind::LetNamedLikeConst => "let-named-like-const",
            MutationKind::IndexNotUsize => "index-not-usize",
            MutationKind::InvalidCast => "invalid-cast",
            MutationKind::ArrayLengthMismatch => "array-length-mismatch",
            MutationKind::BreakOutsideLoop => "break-outside-loop",
            MutationKind::ParseError => "parse-error",
            MutationKind::FieldOfPrimitive => "field-of-primitive",
            MutationKind::MissingModuleFile => "missing-module-file",
            MutationKind::AmbiguousModuleFile => "ambiguous-module-file",
            MutationKind::PrivateTypeInSignature => "private-type-in-signature",
            MutationKind::WrongReturnType => "wrong-return-type",
            MutationKind::CallInConst => "call-in-const",
            MutationKind::DuplicateBinding => "duplicate-binding",
            MutationKind::UnknownType => "unknown-type",
        }
    }
}

impl std::fmt::Display for MutationKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// An ill-formed variant of `p`; `seed % MutationKind::ALL.len()` picks the kind first
/// (falling back to the next kinds when it does not apply). `None` if `p` has no model.
pub fn mutate_ill_formed(p: &Program, seed: u64) -> Option<Mutation> {
    let model = p.model.as_ref()?;
    let kinds = MutationKind::ALL;
    let first = (seed % kinds.len() as u64) as usize;
    for i in 0..kinds.len() {
        let kind = kinds[(first + i) % kinds.len()];
        let mut ed = Editor::new(
            (**model).clone(),
            seed.wrapping_mul(31).wrapping_add(i as u64),
        );
        let n = ed.m.fresh + 9000;
        if let Some(res) = (Mutator { ed: &mut ed, n }).apply(kind) {
            let (desc, program) = match res {
                Applied::Model(desc) => (desc, ed.finish(p)),
                Applied::Files(desc, files) => (desc, Program { files, model: None }),
            };
            return Some(Mutation {
                kind,
                description: format!("{kind}: {desc}"),
                program,
            });
        }
    }
    None
}

enum Applied {
    /// The model was changed.
    Model(String),
    /// The files were changed directly (the model no longer describes them).
    Files(String, Vec<SourceFile>),
}

struct Mutator<'e> {
    ed: &'e mut Editor,
    /// The last number used in a fresh name.
    n: u32,
}

impl Mutator<'_> {
    /// Applies a mutation of `kind`; `None` if the program offers no place for it.
    fn apply(&mut self, kind: MutationKind) -> Option<Applied> {
        use MutationKind as K;
        let n = self.fresh();
        match kind {
            K::LiteralOutOfRange | K::NegateUnsigned => {
                self.statement(integer_error_texts(kind, n))
            }
            K::TypeMismatch
            | K::MismatchedOperands
            | K::IfWithoutElseValue
            | K::CallNonFunction
            | K::IndexNotUsize
            | K::InvalidCast
            | K::ArrayLengthMismatch
            | K::FieldOfPrimitive
            | K::UnknownType => self.statement(type_error_texts(kind, n)),
            K::ComparisonChain | K::BreakValueInWhile | K::BreakOutsideLoop | K::ParseError => {
                self.statement(syntax_error_texts(kind, n))
            }
            K::ConstOverflow
            | K::ConstDivByZero
            | K::ConstIndexOutOfBounds
            | K::ConstShiftOverflow
            | K::CallInConst
            | K::DuplicateBinding => self.module_item(kind, n),
            K::UnresolvedName => self.unresolved_name(n),
            K::PrivateItem => self.private_item(n),
            K::PrivateField => self.private_field(n),
            K::PrivateReexport => self.private_reexport(n),
            K::DuplicateItem => self.duplicate_item(),
            K::ImmutableAssignment => self.immutable_assignment(n),
            K::ConstCycle => self.const_cycle(n),
            K::WrongArgCount => self.wrong_arg_count(),
            K::MissingField => self.missing_field(),
            K::MissingTail => self.missing_tail(n),
            K::LetNamedLikeConst => self.let_named_like_const(),
            K::MissingModuleFile => self.missing_module_file(),
            K::AmbiguousModuleFile => self.ambiguous_module_file(),
            K::PrivateTypeInSignature => self.private_type_in_signature(n),
            K::WrongReturnType => self.wrong_return_type(),
        }
    }

    // -----------------------------------------------------------------------------------
    // Mutations that change a body

    /// One of `texts` as the first statement of a random function.
    fn statement(&mut self, (texts, what): (Vec<String>, &str)) -> Option<Applied> {
        let text = self.choose(texts);
        let f = self.host();
        self.prepend(f, text);
        self.at(what, f)
    }

    /// A function of another module used without a path, or a missing name.
    fn unresolved_name(&mut self, n: u32) -> Option<Applied> {
        let host = self.host();
        let hm = self.m().func(host).module;
        let cands = self.fns_where(|m, f| {
            let fd = m.func(f);
            fd.module != hm
                && fd.kind != FnKind::Main
                && !m
                    .module(hm)
                    .imports
                    .iter()
                    .any(|i| i.target == ItemKey::Fn(f) && i.alias.is_none())
        });
        let text = if !cands.is_empty() && self.ed.rng.chance(60) {
            let f = self.pick_of(&cands);
            format!("let bad{n} = {};", self.m().func(f).name)
        } else {
            self.pick_of(&[
                format!("let bad{n} = missing_value_{n} + 1;"),
                format!("let bad{n} = crate::nowhere_{n}::f();"),
                format!("let bad{n} = self::NOT_DEFINED_{n};"),
            ])
        };
        self.prepend(host, text);
        self.at("unresolved name", host)
    }

    /// A function named by a `crate::` path that is not visible from the host.
    fn private_item(&mut self, n: u32) -> Option<Applied> {
        let host = self.host();
        let hm = self.m().func(host).module;
        let cands = self
            .fns_where(|m, f| m.func(f).kind != FnKind::Main && !m.reachable(hm, ItemKey::Fn(f)));
        let f = self.pick_any(&cands)?;
        let fd = self.m().func(f);
        let text = format!("let bad{n} = {}::{};", self.mod_path(fd.module), fd.name);
        self.prepend(host, text);
        self.at("private function named", host)
    }

    /// A struct literal outside the struct's module with a private field.
    fn private_field(&mut self, n: u32) -> Option<Applied> {
        let cands: Vec<StructId> = (0..self.m().structs.len() as u32)
            .map(StructId)
            .filter(|s| {
                let sd = self.m().strukt(*s);
                sd.module != ROOT && sd.fields.iter().any(|f| !f.is_pub)
            })
            .collect();
        let s = self.pick_any(&cands)?;
        let sd = self.m().strukt(s).clone();
        let fields: Vec<String> = sd
            .fields
            .iter()
            .map(|f| {
                let v = match self.m().canon(&f.ty) {
                    Ty::Bool => "false",
                    _ => "0",
                };
                format!("{}: {v}", f.name)
            })
            .collect();
        let text = format!(
            "let bad{n} = {}::{} {{ {} }};",
            self.mod_path(sd.module),
            sd.name,
            fields.join(", ")
        );
        // Main is in the root, outside every other module.
        let main = self.m().main;
        self.prepend(main, text);
        Some(Applied::Model(format!(
            "literal of `{}` with a private field in `main`",
            sd.name
        )))
    }

    fn immutable_assignment(&mut self, n: u32) -> Option<Applied> {
        let host = self.host();
        let param = self
            .m()
            .func(host)
            .params
            .iter()
            .find(|p| !p.mutable)
            .map(|p| local_name(p.name).into_owned());
        let mut options = vec![
            format!("let bad{n} = 1;\nbad{n} = 2;"),
            format!("let bad{n} = [1, 2, 3];\nbad{n}[0] = 5;"),
            format!("let bad{n} = 7u64;\nbad{n} += 1;"),
        ];
        if let Some(p) = param {
            options.push(format!("{p} = {p};"));
        }
        let t = self.pick_of(&options);
        self.prepend(host, t);
        self.at("assignment to an immutable place", host)
    }

    /// A call given one more argument (or, when it has some, one fewer).
    fn wrong_arg_count(&mut self) -> Option<Applied> {
        let g = self.pick_fn_with(|e| matches!(e, Expr::Call(_)))?;
        let add = self.ed.rng.chance(50);
        let mut done = false;
        self.ed.fn_mut(g).body.walk_mut(&mut |e| {
            if let Expr::Call(c) = e {
                if !done {
                    if add || c.args.is_empty() {
                        c.args.push(Expr::Int(IntLit {
                            value: 0,
                            ty: IntTy::I32,
                            suffix: true,
                            style: LitStyle::Dec,
                            free: false,
                        }));
                    } else {
                        c.args.pop();
                    }
                    done = true;
                }
            }
        });
        self.at("a call with the wrong number of arguments", g)
    }

    fn missing_field(&mut self) -> Option<Applied> {
        let g = self.pick_fn_with(|e| matches!(e, Expr::StructLit(l) if !l.fields.is_empty()))?;
        let mut done = false;
        self.ed.fn_mut(g).body.walk_mut(&mut |e| {
            if let Expr::StructLit(l) = e {
                if !done && !l.fields.is_empty() {
                    l.fields.pop();
                    done = true;
                }
            }
        });
        self.at("a struct literal without one of its fields", g)
    }

    /// A value-returning function whose body no longer ends in a value.
    fn missing_tail(&mut self, n: u32) -> Option<Applied> {
        let cands = self.fns_where(|m, f| {
            let fd = m.func(f);
            fd.ret.is_some() && fd.body.tail.is_some() && !may_diverge(&fd.body)
        });
        if cands.is_empty() || self.ed.rng.chance(30) {
            let md = self.random_module();
            return self.item(
                md,
                format!(
                    "fn bad_{n}() -> i32 {{\n    while false {{\n        return 1;\n    }}\n}}"
                ),
                "function that can end without a value",
            );
        }
        let f = self.pick_of(&cands);
        self.ed.fn_mut(f).body.tail = None;
        self.at("function without its result", f)
    }

    /// `let K = …;` where `K` is a constant of the host's module.
    fn let_named_like_const(&mut self) -> Option<Applied> {
        let f = self.pick_fn_where(|m, f| {
            m.live_consts()
                .any(|c| m.konst(c).module == m.func(f).module)
        })?;
        let md = self.m().func(f).module;
        let consts: Vec<ConstId> = self
            .m()
            .live_consts()
            .filter(|c| self.m().konst(*c).module == md)
            .collect();
        let c = self.pick_of(&consts);
        let text = format!("let {} = 5;", self.m().konst(c).name);
        self.prepend(f, text);
        self.at("`let` binding named like a constant", f)
    }

    fn wrong_return_type(&mut self) -> Option<Applied> {
        let host = self.host();
        let wrong = match self.m().ret_ty(host) {
            Ty::Int(_) => "true",
            Ty::Bool => "1i32",
            Ty::Unit => "5i32",
            _ => "0i32",
        };
        self.prepend(host, format!("if false {{\n    return {wrong};\n}}"));
        self.at("`return` of the wrong type", host)
    }

    // -----------------------------------------------------------------------------------
    // Mutations that add or change items

    /// One of the texts of `kind`, or one made from an existing item of the module, added
    /// to a random module.
    fn module_item(&mut self, kind: MutationKind, n: u32) -> Option<Applied> {
        let md = self.random_module();
        let (mut texts, what) = item_texts(kind, n);
        texts.extend(self.item_text_using(kind, md, n));
        let t = self.choose(texts);
        self.item(md, t, what)
    }

    /// A text of `kind` that uses a constant or function of `md`, if `md` has one.
    fn item_text_using(&mut self, kind: MutationKind, md: ModId, n: u32) -> Option<String> {
        match kind {
            // `T::MAX + (K - K + 1)`.
            MutationKind::ConstOverflow => {
                let (c, t) = self.scalar_const_in(md)?;
                let k = &self.m().konst(c).name;
                Some(format!(
                    "const BAD_{n}: {0} = {0}::MAX + ({k} - {k} + 1);",
                    t.name()
                ))
            }
            MutationKind::ConstDivByZero => {
                let (c, t) = self.scalar_const_in(md)?;
                let k = &self.m().konst(c).name;
                Some(format!("const BAD_{n}: {} = {k} / ({k} - {k});", t.name()))
            }
            // An array constant indexed at its length.
            MutationKind::ConstIndexOutOfBounds => {
                let m = self.m();
                let (c, t, len) = m.live_consts().find_map(|c| {
                    let cd = m.konst(c);
                    match m.canon(&cd.ty) {
                        Ty::Array(e, len) if cd.module == md => e.int().map(|t| (c, t, len)),
                        _ => None,
                    }
                })?;
                Some(format!(
                    "const BAD_{n}: {} = {}[{len}];",
                    t.name(),
                    m.konst(c).name
                ))
            }
            MutationKind::CallInConst => {
                let m = self.m();
                let fd = m
                    .live_fns()
                    .map(|f| m.func(f))
                    .find(|fd| fd.module == md && fd.kind != FnKind::Main)?;
                let args = vec!["0"; fd.params.len()].join(", ");
                Some(format!("const BAD_{n}: i32 = {}({args});", fd.name))
            }
            _ => None,
        }
    }

    fn private_reexport(&mut self, n: u32) -> Option<Applied> {
        let f = self.pick_fn_where(|m, f| {
            let fd = m.func(f);
            !fd.is_pub && fd.module != ROOT
        })?;
        let fd = self.m().func(f);
        let (md, text) = (
            fd.module,
            format!("pub use self::{} as exported_{n};", fd.name),
        );
        self.item(md, text, "`pub use` of a private function")
    }

    /// An item named like an item of the same module.
    fn duplicate_item(&mut self) -> Option<Applied> {
        let md = self.random_module();
        let m = self.m();
        let mut texts = Vec::new();
        for it in &m.module(md).items {
            match it {
                Item::Fn(f) => {
                    let name = &m.func(*f).name;
                    texts.push(format!("fn {name}() {{}}"));
                    texts.push(format!("const {name}: i32 = 0;"));
                }
                Item::Const(c) => texts.push(format!("const {}: i32 = 0;", m.konst(*c).name)),
                Item::Struct(s) => texts.push(format!(
                    "#[derive(Clone, Copy)]\nstruct {} {{}}",
                    m.strukt(*s).name
                )),
                Item::Alias(a) => texts.push(format!("type {} = i32;", m.alias(*a).name)),
                Item::Mod(c) => texts.push(format!("mod {} {{}}", m.module(*c).name)),
                Item::Raw(_) => {}
            }
        }
        let t = self.pick_any(&texts)?;
        self.item(md, t, "duplicate definition")
    }

    fn const_cycle(&mut self, n: u32) -> Option<Applied> {
        let md = self.random_module();
        if let Some((c, t)) = self.scalar_const_in(md).filter(|_| self.ed.rng.chance(50)) {
            // An existing constant made to depend on itself: `K = init + K * 0`.
            let k = self.m().konst(c).name.clone();
            let init = std::mem::replace(&mut self.ed.const_mut(c).init, Expr::Bool(false));
            self.ed.const_mut(c).init = Expr::Binary(
                BinOp::Add,
                Box::new(init),
                Box::new(Expr::Binary(
                    BinOp::Mul,
                    Box::new(Expr::Const(c, 0)),
                    Box::new(int(t, 0)),
                )),
            );
            let path = self.m().file_path(self.m().file_of(md));
            return Some(Applied::Model(format!(
                "constant `{k}` made to depend on itself in {path}"
            )));
        }
        let t = self.pick_of(&[
            format!(
                "const CYCLE_A_{n}: i32 = CYCLE_B_{n} + 1;\nconst CYCLE_B_{n}: i32 = CYCLE_A_{n};"
            ),
            format!("const CYCLE_{n}: i64 = CYCLE_{n} * 2;"),
        ]);
        self.item(md, t, "cycle between constants")
    }

    /// A public function returning a private struct, called from the root.
    fn private_type_in_signature(&mut self, n: u32) -> Option<Applied> {
        let tops: Vec<ModId> = (1..self.m().mods.len() as u32)
            .map(ModId)
            .filter(|md| self.m().module(*md).parent == Some(ROOT))
            .collect();
        let md = self.pick_any(&tops)?;
        let text = format!(
            "#[derive(Clone, Copy)]\nstruct Hidden{n} {{\n    v: i32,\n}}\n\npub fn make_hidden_{n}() -> Hidden{n} {{\n    Hidden{n} {{ v: 1 }}\n}}"
        );
        self.ed.module_mut(md).items.push(Item::Raw(text));
        let call = format!("let bad{n} = {}::make_hidden_{n}();", self.mod_path(md));
        let main = self.m().main;
        self.prepend(main, call);
        Some(Applied::Model(format!(
            "value of a private type in `main` ({})",
            self.m().module(md).name
        )))
    }

    // -----------------------------------------------------------------------------------
    // Mutations of the files

    fn missing_module_file(&mut self) -> Option<Applied> {
        let (mut files, i) = self.files_and_non_root()?;
        let gone = files.remove(i);
        Some(Applied::Files(format!("deleted {}", gone.path), files))
    }

    /// `a/b.rs` ↔ `a/b/mod.rs`: both existing is an error.
    fn ambiguous_module_file(&mut self) -> Option<Applied> {
        let (mut files, i) = self.files_and_non_root()?;
        let f = &files[i];
        let other = match f.path.strip_suffix("/mod.rs") {
            Some(stem) => format!("{stem}.rs"),
            None => format!("{}/mod.rs", f.path.strip_suffix(".rs").expect("rust file")),
        };
        let desc = format!("added {other} next to {}", f.path);
        let dup = SourceFile {
            path: other,
            text: f.text.clone(),
        };
        files.push(dup);
        Some(Applied::Files(desc, files))
    }

    /// The current model's files (before any model change of this mutation) and the index
    /// of a random one other than the root file; `None` if there is no other.
    fn files_and_non_root(&mut self) -> Option<(Vec<SourceFile>, usize)> {
        let m = &self.ed.m;
        let files: Vec<SourceFile> = m
            .file_modules()
            .into_iter()
            .map(|md| SourceFile {
                path: m.file_path(md),
                text: super::render::render_file(m, md),
            })
            .collect();
        if files.len() < 2 {
            return None;
        }
        let i = 1 + self.ed.rng.index(files.len() - 1);
        Some((files, i))
    }

    // -----------------------------------------------------------------------------------
    // Helpers

    fn m(&self) -> &Model {
        &self.ed.m
    }

    fn fresh(&mut self) -> u32 {
        self.n += 1;
        self.n
    }

    /// A random live function (possibly `main`) to host a snippet.
    fn host(&mut self) -> FnId {
        let fns: Vec<FnId> = self.ed.m.live_fns().collect();
        *self.ed.rng.pick(&fns)
    }

    fn where_(&self, f: FnId) -> String {
        let fd = self.m().func(f);
        format!(
            "in `{}` ({})",
            fd.name,
            self.m().file_path(self.m().file_of(fd.module))
        )
    }

    /// Inserts `text` as the first statement of `f`.
    fn prepend(&mut self, f: FnId, text: String) {
        self.ed.fn_mut(f).body.stmts.insert(0, Stmt::Raw(text));
    }

    /// The result of a change `what` in function `f`.
    fn at(&self, what: &str, f: FnId) -> Option<Applied> {
        Some(Applied::Model(format!("{what} {}", self.where_(f))))
    }

    /// Adds `text` as an item of module `md`.
    fn item(&mut self, md: ModId, text: String, what: &str) -> Option<Applied> {
        let path = self.m().file_path(self.m().file_of(md));
        self.ed.module_mut(md).items.push(Item::Raw(text));
        Some(Applied::Model(format!("{what} in {path}")))
    }

    fn random_module(&mut self) -> ModId {
        ModId(self.ed.rng.index(self.ed.m.mods.len()) as u32)
    }

    /// The path `crate::a::b` of a module (`crate` for the root).
    fn mod_path(&self, md: ModId) -> String {
        let mut segs = Vec::new();
        let mut cur = md;
        while let Some(p) = self.m().module(cur).parent {
            segs.push(self.m().module(cur).name.clone());
            cur = p;
        }
        segs.push("crate".into());
        segs.reverse();
        segs.join("::")
    }

    fn pick_of<T: Clone>(&mut self, options: &[T]) -> T {
        self.ed.rng.pick(options).clone()
    }

    /// A random element of `options`, `None` if there is none.
    fn pick_any<T: Clone>(&mut self, options: &[T]) -> Option<T> {
        (!options.is_empty()).then(|| self.pick_of(options))
    }

    /// One of `texts`: a single text is taken without drawing a random number.
    fn choose(&mut self, mut texts: Vec<String>) -> String {
        if texts.len() == 1 {
            texts.pop().expect("one text")
        } else {
            self.pick_of(&texts)
        }
    }

    /// The live functions that satisfy `pred`, in id order.
    fn fns_where(&self, pred: impl Fn(&Model, FnId) -> bool) -> Vec<FnId> {
        let m = self.m();
        m.live_fns().filter(|f| pred(m, *f)).collect()
    }

    /// A random live function that satisfies `pred`.
    fn pick_fn_where(&mut self, pred: impl Fn(&Model, FnId) -> bool) -> Option<FnId> {
        let cands = self.fns_where(pred);
        self.pick_any(&cands)
    }

    /// A random live function whose body has an expression that satisfies `pred`.
    fn pick_fn_with(&mut self, pred: impl Fn(&Expr) -> bool) -> Option<FnId> {
        self.pick_fn_where(|m, f| {
            let mut hit = false;
            m.func(f).body.walk(&mut |e| hit |= pred(e));
            hit
        })
    }

    /// A live scalar integer constant defined in module `md`.
    fn scalar_const_in(&mut self, md: ModId) -> Option<(ConstId, IntTy)> {
        let m = self.m();
        let cands: Vec<(ConstId, IntTy)> = m
            .live_consts()
            .filter(|c| m.konst(*c).module == md && !m.konst(*c).in_types)
            .filter_map(|c| m.canon(&m.konst(c).ty).int().map(|t| (c, t)))
            .collect();
        self.pick_any(&cands)
    }
}

/// The statements of a kind that breaks a typing rule (one is inserted), and what they do.
fn type_error_texts(kind: MutationKind, n: u32) -> (Vec<String>, &'static str) {
    match kind {
        MutationKind::TypeMismatch => (
            vec![
                format!("let bad{n}: bool = {n}i32;"),
                format!("let bad{n}: i64 = {n}i32;"),
                format!("let bad{n}: usize = {n}u64;"),
                format!("let bad{n}: i32 = ();"),
                format!("let bad{n}: u64 = true;"),
                format!("if {n} {{}}"),
            ],
            "mismatched types",
        ),
        MutationKind::MismatchedOperands => (
            vec![
                format!("let bad{n} = 1i32 + 2i64;"),
                format!("let bad{n} = 1u64 * 2usize;"),
                format!("let bad{n} = 1i32 < 2u64;"),
                format!("let bad{n} = true & 1;"),
                format!("let bad{n} = 5i64 + true;"),
            ],
            "operands of different types",
        ),
        MutationKind::IfWithoutElseValue => (
            vec![format!("let bad{n}: i32 = if true {{ 1 }};")],
            "`if` without `else` used as a value",
        ),
        MutationKind::CallNonFunction => (
            vec![
                format!("let f{n} = 2;\nf{n}();"),
                format!("let bad{n} = 5i32(1);"),
            ],
            "call of a non-function",
        ),
        MutationKind::IndexNotUsize => (
            vec![
                format!("let a{n} = [1, 2, 3];\nlet bad{n} = a{n}[1i32];"),
                format!("let bad{n} = [1u64, 2][0u64];"),
                format!("let bad{n} = [true; 2][-1];"),
            ],
            "index that is not a `usize`",
        ),
        MutationKind::InvalidCast => (
            vec![
                format!("let bad{n} = 5i32 as bool;"),
                format!("let bad{n} = [1, 2] as i32;"),
                format!("let bad{n} = () as u64;"),
            ],
            "invalid cast",
        ),
        MutationKind::ArrayLengthMismatch => (
            vec![
                format!("let bad{n}: [i32; 3] = [1, 2];"),
                format!("let bad{n}: [u64; 2] = [0; 3];"),
            ],
            "array of the wrong length",
        ),
        MutationKind::FieldOfPrimitive => (
            vec![format!("let x{n} = 5i32;\nlet bad{n} = x{n}.field;")],
            "field access on an integer",
        ),
        MutationKind::UnknownType => (
            vec![
                format!("let bad{n}: Unknown{n} = 5;"),
                format!("let bad{n}: [Missing{n}; 2] = [0; 2];"),
            ],
            "unknown type",
        ),
        other => unreachable!("{other} is not a typing error snippet"),
    }
}

/// The statements of a kind that puts an integer out of its type's range (one is
/// inserted), and what they do.
fn integer_error_texts(kind: MutationKind, n: u32) -> (Vec<String>, &'static str) {
    match kind {
        MutationKind::LiteralOutOfRange => (
            vec![
                format!("let bad{n}: i32 = 2147483648;"),
                format!("let bad{n} = 4294967296i32;"),
                format!("let bad{n}: u64 = 18446744073709551616;"),
                format!("let bad{n} = 0x1_0000_0000i32;"),
                format!("let bad{n}: i32 = 0xFFFF_FFFF;"),
                format!("let bad{n}: i64 = 9223372036854775808;"),
                format!("let bad{n} = (3000000000 + 0) as i64;"),
                format!("let bad{n}: i32 = -2147483649;"),
                format!("let bad{n} = -(-2147483648i32);"),
                format!("let bad{n}: usize = 18446744073709551616;"),
            ],
            "integer literal out of range",
        ),
        MutationKind::NegateUnsigned => (
            vec![
                format!("let bad{n} = -(5u64);"),
                format!("let x{n}: usize = 3;\nlet bad{n} = -x{n};"),
                format!("let bad{n}: u64 = -1;"),
            ],
            "negation of an unsigned integer",
        ),
        other => unreachable!("{other} is not an integer range snippet"),
    }
}

/// The statements of a kind that breaks a syntactic or control flow rule (one is
/// inserted), and what they do.
fn syntax_error_texts(kind: MutationKind, n: u32) -> (Vec<String>, &'static str) {
    match kind {
        MutationKind::ComparisonChain => (
            vec![
                format!("let bad{n} = 1 < 2 < 3;"),
                format!("let bad{n} = 1 == 2 == false;"),
                format!("let bad{n} = 3 > 2 > 1;"),
                format!("let bad{n} = 1 <= 2 != true;"),
            ],
            "chained comparison",
        ),
        MutationKind::BreakValueInWhile => (
            vec![
                format!("let mut k{n} = 0;\nwhile k{n} < 3 {{\n    k{n} += 1;\n    break 5;\n}}"),
                format!("for i{n} in 0..3 {{\n    break i{n};\n}}"),
                format!("let bad{n} = while false {{ break 1; }};"),
            ],
            "`break` with a value outside `loop`",
        ),
        MutationKind::BreakOutsideLoop => (
            vec![
                "break;".to_string(),
                "continue;".to_string(),
                format!("loop {{\n    break 'missing{n};\n}}"),
            ],
            "`break`/`continue` without a matching loop",
        ),
        MutationKind::ParseError => (
            vec![
                format!("let bad{n} = 1 as i64 < 2;"),
                format!("let bad{n} = 1<-1;"),
                format!("let match{n} = 1 let other{n} = 2;"),
                format!("let yield = {n};"),
                format!("let bad{n} = 1;\n//! inner doc comment {n}"),
                format!("{{ {n} }} + 1;"),
                format!("if true {{\n    /// dangling doc comment {n}\n}}"),
                format!("let bad{n} = (1;"),
            ],
            "syntax error",
        ),
        other => unreachable!("{other} is not a syntax error snippet"),
    }
}

/// The items of a kind added to a module (one is added), and what they do.
fn item_texts(kind: MutationKind, n: u32) -> (Vec<String>, &'static str) {
    match kind {
        MutationKind::ConstOverflow => (
            vec![
                format!("const BAD_{n}: i32 = i32::MAX + 1;"),
                format!("const BAD_{n}: u64 = 0 - 1;"),
                format!("const BAD_{n}: usize = 3 - 4;"),
                format!("const BAD_{n}: i64 = i64::MIN * -1;"),
                format!("const BAD_{n}: i32 = -i32::MIN;"),
                format!("const BAD_{n}: i32 = {{\n    let mut x = 1;\n    let mut i = 0;\n    while i < 40 {{\n        x = x * 2;\n        i += 1;\n    }}\n    x\n}};"),
            ],
            "overflow in a constant",
        ),
        MutationKind::ConstDivByZero => (
            vec![
                format!("const BAD_{n}: i32 = 1 / 0;"),
                format!("const BAD_{n}: u64 = 7 % 0;"),
                format!("const BAD_{n}: i32 = i32::MIN / -1;"),
                format!("const BAD_{n}: i64 = i64::MIN % -1;"),
            ],
            "division by zero in a constant",
        ),
        MutationKind::ConstIndexOutOfBounds => (
            vec![
                format!("const BAD_{n}: i32 = [1, 2, 3][3];"),
                format!("const BAD_{n}: u64 = [7u64; 2][5];"),
            ],
            "index out of bounds in a constant",
        ),
        MutationKind::ConstShiftOverflow => (
            vec![
                format!("const BAD_{n}: i32 = 1 << 32;"),
                format!("const BAD_{n}: u64 = 1 << 64;"),
                format!("const BAD_{n}: i64 = 1 >> 70;"),
                format!("const BAD_{n}: i32 = 8 << -1;"),
            ],
            "shift overflow in a constant",
        ),
        MutationKind::CallInConst => (
            vec![
                format!("const BAD_{n}: i32 = {{\n    let mut s = 0;\n    for i in 0..3 {{\n        s += i;\n    }}\n    s\n}};"),
                format!("const BAD_{n}: i32 = return 5;"),
            ],
            "function call or `for` in a constant",
        ),
        MutationKind::DuplicateBinding => (
            vec![
                format!("fn bad_{n}(a: i32, a: i32) {{}}"),
                format!("#[derive(Clone, Copy)]\nstruct Bad{n} {{\n    a: i32,\n    a: u64,\n}}"),
                format!("#[derive(Clone, Copy)]\nstruct Bad{n} {{\n    a: i32,\n}}\n\nconst BAD_{n}: Bad{n} = Bad{n} {{ a: 1, a: 2 }};"),
            ],
            "the same name bound twice",
        ),
        other => unreachable!("{other} is not an item mutation"),
    }
}

/// Could the block end without reaching its tail (`return`, a diverging `loop`)? Then
/// removing the tail might not be an error.
fn may_diverge(b: &Block) -> bool {
    let mut hit = false;
    b.walk(&mut |e| hit |= matches!(e, Expr::Return(_) | Expr::Loop(..)));
    hit
}

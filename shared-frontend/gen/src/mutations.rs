//! Ill-formed programs: a valid program with one change that rustc rejects (type errors,
//! unresolved names, privacy violations, duplicates, mutability, const evaluation errors,
//! out-of-range literals, arity, missing fields, parse errors, missing module files, …).
//!
//! Every mutation is an error whatever the surrounding program looks like: snippets are
//! self-contained (fresh names) and are inserted at the start of a body, where they are
//! always reachable; structural mutations (dropping a field of a literal, adding an
//! argument) break a rule unconditionally.

use super::edits::Editor;
use super::model::*;
use super::{Program, SourceFile};

/// An ill-formed variant of a program.
#[derive(Clone, Debug)]
pub struct Mutation {
    /// `kind: what was changed where`.
    pub description: String,
    pub program: Program,
}

/// The mutation kinds, in the order `seed % len` selects them.
const KINDS: &[&str] = &[
    "type-mismatch",
    "unresolved-name",
    "private-item",
    "private-field",
    "private-reexport",
    "duplicate-item",
    "immutable-assignment",
    "const-overflow",
    "const-div-by-zero",
    "const-index-out-of-bounds",
    "const-shift-overflow",
    "const-cycle",
    "literal-out-of-range",
    "wrong-arg-count",
    "missing-field",
    "comparison-chain",
    "break-value-in-while",
    "negate-unsigned",
    "mismatched-operands",
    "missing-tail",
    "if-without-else-value",
    "call-non-function",
    "let-named-like-const",
    "index-not-usize",
    "invalid-cast",
    "array-length-mismatch",
    "break-outside-loop",
    "parse-error",
    "field-of-primitive",
    "missing-module-file",
    "ambiguous-module-file",
    "private-type-in-signature",
    "wrong-return-type",
    "call-in-const",
    "duplicate-binding",
    "unknown-type",
];

/// The names of the mutation kinds (the prefix of [`Mutation::description`]).
pub fn mutation_kinds() -> &'static [&'static str] {
    KINDS
}

/// An ill-formed variant of `p`; `seed % mutation_kinds().len()` picks the kind first
/// (falling back to the next kinds when it does not apply). `None` if `p` has no model.
pub fn mutate_ill_formed(p: &Program, seed: u64) -> Option<Mutation> {
    let model = p.model.as_ref()?;
    let first = (seed % KINDS.len() as u64) as usize;
    for i in 0..KINDS.len() {
        let kind = KINDS[(first + i) % KINDS.len()];
        let mut ed = Editor::new(
            (**model).clone(),
            seed.wrapping_mul(31).wrapping_add(i as u64),
        );
        let mut mu = Mutator { ed: &mut ed, n: 0 };
        mu.n = mu.ed.m.fresh + 9000;
        if let Some(res) = mu.apply(kind) {
            let (desc, files) = match res {
                Applied::Model(desc) => (desc, None),
                Applied::Files(desc, files) => (desc, Some(files)),
            };
            let program = match files {
                Some(files) => Program { files, model: None },
                None => ed.finish(p),
            };
            return Some(Mutation {
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
    n: u32,
}

impl Mutator<'_> {
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

    /// Inserts `text` as the first statement of a random function.
    fn snippet(&mut self, text: String, what: &str) -> Option<Applied> {
        let f = self.host();
        self.ed.fn_mut(f).body.stmts.insert(0, Stmt::Raw(text));
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

    fn pick_of(&mut self, options: &[String]) -> String {
        self.ed.rng.pick(options).clone()
    }

    fn apply(&mut self, kind: &str) -> Option<Applied> {
        let n = self.fresh();
        match kind {
            "type-mismatch" => {
                let t = self.pick_of(&[
                    format!("let bad{n}: bool = {n}i32;"),
                    format!("let bad{n}: i64 = {n}i32;"),
                    format!("let bad{n}: usize = {n}u64;"),
                    format!("let bad{n}: i32 = ();"),
                    format!("let bad{n}: u64 = true;"),
                    format!("if {n} {{}}"),
                ]);
                self.snippet(t, "mismatched types")
            }
            "unresolved-name" => {
                // A function of another module used without a path, or a missing name.
                let host = self.host();
                let hm = self.m().func(host).module;
                let cands: Vec<FnId> = self
                    .m()
                    .live_fns()
                    .filter(|f| {
                        let fd = self.m().func(*f);
                        fd.module != hm
                            && fd.kind != FnKind::Main
                            && !self
                                .m()
                                .module(hm)
                                .imports
                                .iter()
                                .any(|i| i.target == ItemKey::Fn(*f) && i.alias.is_none())
                    })
                    .collect();
                let text = if !cands.is_empty() && self.ed.rng.chance(60) {
                    let f = *self.ed.rng.pick(&cands);
                    format!("let bad{n} = {};", self.m().func(f).name)
                } else {
                    self.pick_of(&[
                        format!("let bad{n} = missing_value_{n} + 1;"),
                        format!("let bad{n} = crate::nowhere_{n}::f();"),
                        format!("let bad{n} = self::NOT_DEFINED_{n};"),
                    ])
                };
                self.ed.fn_mut(host).body.stmts.insert(0, Stmt::Raw(text));
                Some(Applied::Model(format!(
                    "unresolved name {}",
                    self.where_(host)
                )))
            }
            "private-item" => {
                // A function named by a `crate::` path that is not visible from the host.
                let host = self.host();
                let hm = self.m().func(host).module;
                let cands: Vec<FnId> = self
                    .m()
                    .live_fns()
                    .filter(|f| {
                        self.m().func(*f).kind != FnKind::Main
                            && !self.m().reachable(hm, ItemKey::Fn(*f))
                    })
                    .collect();
                if cands.is_empty() {
                    return None;
                }
                let f = *self.ed.rng.pick(&cands);
                let fd = self.m().func(f);
                let text = format!("let bad{n} = {}::{};", self.mod_path(fd.module), fd.name);
                self.ed.fn_mut(host).body.stmts.insert(0, Stmt::Raw(text));
                Some(Applied::Model(format!(
                    "private function named {}",
                    self.where_(host)
                )))
            }
            "private-field" => {
                // A struct literal outside the struct's module with a private field.
                let cands: Vec<StructId> = (0..self.m().structs.len() as u32)
                    .map(StructId)
                    .filter(|s| {
                        let sd = self.m().strukt(*s);
                        sd.module != ROOT && sd.fields.iter().any(|f| !f.is_pub)
                    })
                    .collect();
                if cands.is_empty() {
                    return None;
                }
                let s = *self.ed.rng.pick(&cands);
                let sd = self.m().strukt(s).clone();
                let fields: Vec<String> = sd
                    .fields
                    .iter()
                    .map(|f| {
                        let v = match self.m().canon(&f.ty) {
                            Ty::Bool => "false".to_string(),
                            Ty::Int(_) => "0".to_string(),
                            _ => "0".to_string(),
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
                self.ed.fn_mut(main).body.stmts.insert(0, Stmt::Raw(text));
                Some(Applied::Model(format!(
                    "literal of `{}` with a private field in `main`",
                    sd.name
                )))
            }
            "private-reexport" => {
                let cands: Vec<FnId> = self
                    .m()
                    .live_fns()
                    .filter(|f| {
                        let fd = self.m().func(*f);
                        !fd.is_pub && fd.module != ROOT
                    })
                    .collect();
                if cands.is_empty() {
                    return None;
                }
                let f = *self.ed.rng.pick(&cands);
                let fd = self.m().func(f).clone();
                self.item(
                    fd.module,
                    format!("pub use self::{} as exported_{n};", fd.name),
                    "`pub use` of a private function",
                )
            }
            "duplicate-item" => {
                let md = self.random_module();
                let items = self.m().module(md).items.clone();
                let mut texts = Vec::new();
                for it in &items {
                    match it {
                        Item::Fn(f) => {
                            let name = &self.m().func(*f).name;
                            texts.push(format!("fn {name}() {{}}"));
                            texts.push(format!("const {name}: i32 = 0;"));
                        }
                        Item::Const(c) => {
                            texts.push(format!("const {}: i32 = 0;", self.m().konst(*c).name))
                        }
                        Item::Struct(s) => texts.push(format!(
                            "#[derive(Clone, Copy)]\nstruct {} {{}}",
                            self.m().strukt(*s).name
                        )),
                        Item::Alias(a) => {
                            texts.push(format!("type {} = i32;", self.m().alias(*a).name))
                        }
                        Item::Mod(c) => {
                            texts.push(format!("mod {} {{}}", self.m().module(*c).name))
                        }
                        Item::Raw(_) => {}
                    }
                }
                if texts.is_empty() {
                    return None;
                }
                let t = self.pick_of(&texts);
                self.item(md, t, "duplicate definition")
            }
            "immutable-assignment" => {
                let host = self.host();
                let params: Vec<String> = self
                    .m()
                    .func(host)
                    .params
                    .iter()
                    .filter(|p| !p.mutable)
                    .map(|p| local_name(p.name).into_owned())
                    .collect();
                let mut options = vec![
                    format!("let bad{n} = 1;\nbad{n} = 2;"),
                    format!("let bad{n} = [1, 2, 3];\nbad{n}[0] = 5;"),
                    format!("let bad{n} = 7u64;\nbad{n} += 1;"),
                ];
                if let Some(p) = params.first() {
                    options.push(format!("{p} = {p};"));
                }
                let t = self.pick_of(&options);
                self.ed.fn_mut(host).body.stmts.insert(0, Stmt::Raw(t));
                Some(Applied::Model(format!(
                    "assignment to an immutable place {}",
                    self.where_(host)
                )))
            }
            "const-overflow" => {
                let md = self.random_module();
                let mut options = vec![
                    format!("const BAD_{n}: i32 = i32::MAX + 1;"),
                    format!("const BAD_{n}: u64 = 0 - 1;"),
                    format!("const BAD_{n}: usize = 3 - 4;"),
                    format!("const BAD_{n}: i64 = i64::MIN * -1;"),
                    format!("const BAD_{n}: i32 = -i32::MIN;"),
                    format!("const BAD_{n}: i32 = {{\n    let mut x = 1;\n    let mut i = 0;\n    while i < 40 {{\n        x = x * 2;\n        i += 1;\n    }}\n    x\n}};"),
                ];
                // Through an existing constant: `T::MAX + (K - K + 1)`.
                if let Some((c, t)) = self.scalar_const_in(md) {
                    let k = self.m().konst(c).name.clone();
                    options.push(format!(
                        "const BAD_{n}: {0} = {0}::MAX + ({k} - {k} + 1);",
                        t.name()
                    ));
                }
                let t = self.pick_of(&options);
                self.item(md, t, "overflow in a constant")
            }
            "const-div-by-zero" => {
                let md = self.random_module();
                let mut options = vec![
                    format!("const BAD_{n}: i32 = 1 / 0;"),
                    format!("const BAD_{n}: u64 = 7 % 0;"),
                    format!("const BAD_{n}: i32 = i32::MIN / -1;"),
                    format!("const BAD_{n}: i64 = i64::MIN % -1;"),
                ];
                if let Some((c, t)) = self.scalar_const_in(md) {
                    let k = self.m().konst(c).name.clone();
                    options.push(format!("const BAD_{n}: {} = {k} / ({k} - {k});", t.name()));
                }
                let t = self.pick_of(&options);
                self.item(md, t, "division by zero in a constant")
            }
            "const-index-out-of-bounds" => {
                let md = self.random_module();
                let mut options = vec![
                    format!("const BAD_{n}: i32 = [1, 2, 3][3];"),
                    format!("const BAD_{n}: u64 = [7u64; 2][5];"),
                ];
                // An existing array constant indexed at its length.
                let arrays: Vec<(ConstId, u64)> = self
                    .m()
                    .live_consts()
                    .filter(|c| self.m().konst(*c).module == md)
                    .filter_map(|c| match self.m().canon(&self.m().konst(c).ty) {
                        Ty::Array(e, len) if matches!(*e, Ty::Int(_)) => Some((c, len)),
                        _ => None,
                    })
                    .collect();
                if let Some(&(c, len)) = arrays.first() {
                    let cd = self.m().konst(c);
                    let Ty::Array(e, _) = self.m().canon(&cd.ty) else {
                        unreachable!()
                    };
                    let Ty::Int(t) = *e else { unreachable!() };
                    options.push(format!("const BAD_{n}: {} = {}[{len}];", t.name(), cd.name));
                }
                let t = self.pick_of(&options);
                self.item(md, t, "index out of bounds in a constant")
            }
            "const-shift-overflow" => {
                let md = self.random_module();
                let t = self.pick_of(&[
                    format!("const BAD_{n}: i32 = 1 << 32;"),
                    format!("const BAD_{n}: u64 = 1 << 64;"),
                    format!("const BAD_{n}: i64 = 1 >> 70;"),
                    format!("const BAD_{n}: i32 = 8 << -1;"),
                ]);
                self.item(md, t, "shift overflow in a constant")
            }
            "const-cycle" => {
                let md = self.random_module();
                let options = [
                    format!("const CYCLE_A_{n}: i32 = CYCLE_B_{n} + 1;\nconst CYCLE_B_{n}: i32 = CYCLE_A_{n};"),
                    format!("const CYCLE_{n}: i64 = CYCLE_{n} * 2;"),
                ];
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
                            Box::new(Expr::Int(IntLit {
                                value: 0,
                                ty: t,
                                suffix: false,
                                style: LitStyle::Dec,
                                free: false,
                            })),
                        )),
                    );
                    let path = self.m().file_path(self.m().file_of(md));
                    return Some(Applied::Model(format!(
                        "constant `{k}` made to depend on itself in {path}"
                    )));
                }
                let t = self.pick_of(&options);
                self.item(md, t, "cycle between constants")
            }
            "literal-out-of-range" => {
                let t = self.pick_of(&[
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
                ]);
                self.snippet(t, "integer literal out of range")
            }
            "wrong-arg-count" => {
                let callers: Vec<FnId> = self.fns_with(|e| matches!(e, Expr::Call(_)));
                if callers.is_empty() {
                    return None;
                }
                let g = *self.ed.rng.pick(&callers);
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
                Some(Applied::Model(format!(
                    "a call with the wrong number of arguments {}",
                    self.where_(g)
                )))
            }
            "missing-field" => {
                let fns: Vec<FnId> =
                    self.fns_with(|e| matches!(e, Expr::StructLit(l) if !l.fields.is_empty()));
                if fns.is_empty() {
                    return None;
                }
                let g = *self.ed.rng.pick(&fns);
                let mut done = false;
                self.ed.fn_mut(g).body.walk_mut(&mut |e| {
                    if let Expr::StructLit(l) = e {
                        if !done && !l.fields.is_empty() {
                            l.fields.pop();
                            done = true;
                        }
                    }
                });
                Some(Applied::Model(format!(
                    "a struct literal without one of its fields {}",
                    self.where_(g)
                )))
            }
            "comparison-chain" => {
                let t = self.pick_of(&[
                    format!("let bad{n} = 1 < 2 < 3;"),
                    format!("let bad{n} = 1 == 2 == false;"),
                    format!("let bad{n} = 3 > 2 > 1;"),
                    format!("let bad{n} = 1 <= 2 != true;"),
                ]);
                self.snippet(t, "chained comparison")
            }
            "break-value-in-while" => {
                let t = self.pick_of(&[
                    format!(
                        "let mut k{n} = 0;\nwhile k{n} < 3 {{\n    k{n} += 1;\n    break 5;\n}}"
                    ),
                    format!("for i{n} in 0..3 {{\n    break i{n};\n}}"),
                    format!("let bad{n} = while false {{ break 1; }};"),
                ]);
                self.snippet(t, "`break` with a value outside `loop`")
            }
            "negate-unsigned" => {
                let t = self.pick_of(&[
                    format!("let bad{n} = -(5u64);"),
                    format!("let x{n}: usize = 3;\nlet bad{n} = -x{n};"),
                    format!("let bad{n}: u64 = -1;"),
                ]);
                self.snippet(t, "negation of an unsigned integer")
            }
            "mismatched-operands" => {
                let t = self.pick_of(&[
                    format!("let bad{n} = 1i32 + 2i64;"),
                    format!("let bad{n} = 1u64 * 2usize;"),
                    format!("let bad{n} = 1i32 < 2u64;"),
                    format!("let bad{n} = true & 1;"),
                    format!("let bad{n} = 5i64 + true;"),
                ]);
                self.snippet(t, "operands of different types")
            }
            "missing-tail" => {
                // A value-returning function whose body no longer ends in a value.
                let cands: Vec<FnId> = self
                    .m()
                    .live_fns()
                    .filter(|f| {
                        let fd = self.m().func(*f);
                        fd.ret.is_some() && fd.body.tail.is_some() && !may_diverge(&fd.body)
                    })
                    .collect();
                if cands.is_empty() || self.ed.rng.chance(30) {
                    let md = self.random_module();
                    return self.item(md, format!("fn bad_{n}() -> i32 {{\n    while false {{\n        return 1;\n    }}\n}}"), "function that can end without a value");
                }
                let f = *self.ed.rng.pick(&cands);
                self.ed.fn_mut(f).body.tail = None;
                Some(Applied::Model(format!(
                    "function without its result {}",
                    self.where_(f)
                )))
            }
            "if-without-else-value" => self.snippet(
                format!("let bad{n}: i32 = if true {{ 1 }};"),
                "`if` without `else` used as a value",
            ),
            "call-non-function" => {
                let t = self.pick_of(&[
                    format!("let f{n} = 2;\nf{n}();"),
                    format!("let bad{n} = 5i32(1);"),
                ]);
                self.snippet(t, "call of a non-function")
            }
            "let-named-like-const" => {
                // `let K = …;` where `K` is a constant of the host's module.
                let cands: Vec<FnId> = self
                    .m()
                    .live_fns()
                    .filter(|f| {
                        self.m()
                            .live_consts()
                            .any(|c| self.m().konst(c).module == self.m().func(*f).module)
                    })
                    .collect();
                if cands.is_empty() {
                    return None;
                }
                let f = *self.ed.rng.pick(&cands);
                let md = self.m().func(f).module;
                let consts: Vec<ConstId> = self
                    .m()
                    .live_consts()
                    .filter(|c| self.m().konst(*c).module == md)
                    .collect();
                let c = *self.ed.rng.pick(&consts);
                let text = format!("let {} = 5;", self.m().konst(c).name);
                self.ed.fn_mut(f).body.stmts.insert(0, Stmt::Raw(text));
                Some(Applied::Model(format!(
                    "`let` binding named like a constant {}",
                    self.where_(f)
                )))
            }
            "index-not-usize" => {
                let t = self.pick_of(&[
                    format!("let a{n} = [1, 2, 3];\nlet bad{n} = a{n}[1i32];"),
                    format!("let bad{n} = [1u64, 2][0u64];"),
                    format!("let bad{n} = [true; 2][-1];"),
                ]);
                self.snippet(t, "index that is not a `usize`")
            }
            "invalid-cast" => {
                let t = self.pick_of(&[
                    format!("let bad{n} = 5i32 as bool;"),
                    format!("let bad{n} = [1, 2] as i32;"),
                    format!("let bad{n} = () as u64;"),
                ]);
                self.snippet(t, "invalid cast")
            }
            "array-length-mismatch" => {
                let t = self.pick_of(&[
                    format!("let bad{n}: [i32; 3] = [1, 2];"),
                    format!("let bad{n}: [u64; 2] = [0; 3];"),
                ]);
                self.snippet(t, "array of the wrong length")
            }
            "break-outside-loop" => {
                let t = self.pick_of(&[
                    "break;".to_string(),
                    "continue;".to_string(),
                    format!("loop {{\n    break 'missing{n};\n}}"),
                ]);
                self.snippet(t, "`break`/`continue` without a matching loop")
            }
            "parse-error" => {
                let t = self.pick_of(&[
                    format!("let bad{n} = 1 as i64 < 2;"),
                    format!("let bad{n} = 1<-1;"),
                    format!("let match{n} = 1 let other{n} = 2;"),
                    format!("let yield = {n};"),
                    format!("let bad{n} = 1;\n//! inner doc comment {n}"),
                    format!("{{ {n} }} + 1;"),
                    format!("if true {{\n    /// dangling doc comment {n}\n}}"),
                    format!("let bad{n} = (1;"),
                ]);
                self.snippet(t, "syntax error")
            }
            "field-of-primitive" => self.snippet(
                format!("let x{n} = 5i32;\nlet bad{n} = x{n}.field;"),
                "field access on an integer",
            ),
            "missing-module-file" => {
                let files = self.ed_files();
                if files.len() < 2 {
                    return None;
                }
                let i = 1 + self.ed.rng.index(files.len() - 1);
                let mut files = files;
                let gone = files.remove(i);
                Some(Applied::Files(format!("deleted {}", gone.path), files))
            }
            "ambiguous-module-file" => {
                let files = self.ed_files();
                if files.len() < 2 {
                    return None;
                }
                let i = 1 + self.ed.rng.index(files.len() - 1);
                let f = &files[i];
                // `a/b.rs` ↔ `a/b/mod.rs`: both existing is an error.
                let other = match f.path.strip_suffix("/mod.rs") {
                    Some(stem) => format!("{stem}.rs"),
                    None => format!("{}/mod.rs", f.path.strip_suffix(".rs").expect("rust file")),
                };
                let mut files = files.clone();
                let dup = SourceFile {
                    path: other.clone(),
                    text: files[i].text.clone(),
                };
                files.push(dup);
                Some(Applied::Files(
                    format!("added {other} next to {}", files[i].path),
                    files,
                ))
            }
            "private-type-in-signature" => {
                // A public function returning a private struct, called from the root.
                let tops: Vec<ModId> = (1..self.m().mods.len() as u32)
                    .map(ModId)
                    .filter(|md| self.m().module(*md).parent == Some(ROOT))
                    .collect();
                if tops.is_empty() {
                    return None;
                }
                let md = *self.ed.rng.pick(&tops);
                let text = format!(
                    "#[derive(Clone, Copy)]\nstruct Hidden{n} {{\n    v: i32,\n}}\n\npub fn make_hidden_{n}() -> Hidden{n} {{\n    Hidden{n} {{ v: 1 }}\n}}"
                );
                self.ed.module_mut(md).items.push(Item::Raw(text));
                let call = format!("let bad{n} = {}::make_hidden_{n}();", self.mod_path(md));
                let main = self.m().main;
                self.ed.fn_mut(main).body.stmts.insert(0, Stmt::Raw(call));
                Some(Applied::Model(format!(
                    "value of a private type in `main` ({})",
                    self.m().module(md).name
                )))
            }
            "wrong-return-type" => {
                let host = self.host();
                let wrong = match self.m().ret_ty(host) {
                    Ty::Int(_) => "true",
                    Ty::Bool => "1i32",
                    Ty::Unit => "5i32",
                    _ => "0i32",
                };
                let text = format!("if false {{\n    return {wrong};\n}}");
                self.ed.fn_mut(host).body.stmts.insert(0, Stmt::Raw(text));
                Some(Applied::Model(format!(
                    "`return` of the wrong type {}",
                    self.where_(host)
                )))
            }
            "call-in-const" => {
                let md = self.random_module();
                let fns: Vec<FnId> = self
                    .m()
                    .live_fns()
                    .filter(|f| {
                        self.m().func(*f).module == md && self.m().func(*f).kind != FnKind::Main
                    })
                    .collect();
                let mut options = vec![
                    format!("const BAD_{n}: i32 = {{\n    let mut s = 0;\n    for i in 0..3 {{\n        s += i;\n    }}\n    s\n}};"),
                    format!("const BAD_{n}: i32 = return 5;"),
                ];
                if let Some(&f) = fns.first() {
                    let fd = self.m().func(f);
                    let args = vec!["0"; fd.params.len()].join(", ");
                    options.push(format!("const BAD_{n}: i32 = {}({args});", fd.name));
                }
                let t = self.pick_of(&options);
                self.item(md, t, "function call or `for` in a constant")
            }
            "duplicate-binding" => {
                let md = self.random_module();
                let t = self.pick_of(&[
                    format!("fn bad_{n}(a: i32, a: i32) {{}}"),
                    format!("#[derive(Clone, Copy)]\nstruct Bad{n} {{\n    a: i32,\n    a: u64,\n}}"),
                    format!("#[derive(Clone, Copy)]\nstruct Bad{n} {{\n    a: i32,\n}}\n\nconst BAD_{n}: Bad{n} = Bad{n} {{ a: 1, a: 2 }};"),
                ]);
                self.item(md, t, "the same name bound twice")
            }
            "unknown-type" => {
                let t = self.pick_of(&[
                    format!("let bad{n}: Unknown{n} = 5;"),
                    format!("let bad{n}: [Missing{n}; 2] = [0; 2];"),
                ]);
                self.snippet(t, "unknown type")
            }
            other => unreachable!("unknown mutation kind {other}"),
        }
    }

    /// The current model's files (before any model change of this mutation).
    fn ed_files(&self) -> Vec<SourceFile> {
        let m = &self.ed.m;
        m.file_modules()
            .into_iter()
            .map(|md| SourceFile {
                path: m.file_path(md),
                text: super::render::render_file(m, md),
            })
            .collect()
    }

    fn fns_with(&self, pred: impl Fn(&Expr) -> bool) -> Vec<FnId> {
        self.m()
            .live_fns()
            .filter(|f| {
                let mut hit = false;
                self.m().func(*f).body.walk(&mut |e| hit |= pred(e));
                hit
            })
            .collect()
    }

    /// A live scalar integer constant defined in module `md`.
    fn scalar_const_in(&mut self, md: ModId) -> Option<(ConstId, IntTy)> {
        let cands: Vec<(ConstId, IntTy)> = self
            .m()
            .live_consts()
            .filter(|c| self.m().konst(*c).module == md && !self.m().konst(*c).in_types)
            .filter_map(|c| self.m().canon(&self.m().konst(c).ty).int().map(|t| (c, t)))
            .collect();
        (!cands.is_empty()).then(|| *self.ed.rng.pick(&cands))
    }
}

/// Could the block end without reaching its tail (`return`, a diverging `loop`)? Then
/// removing the tail might not be an error.
fn may_diverge(b: &Block) -> bool {
    let mut hit = false;
    b.walk(&mut |e| hit |= matches!(e, Expr::Return(_) | Expr::Loop(..)));
    hit
}

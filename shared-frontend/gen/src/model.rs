//! The generator's model of a program: a module tree with functions, constants, structs,
//! type aliases and imports, and a small typed AST for bodies and initializers.
//!
//! Items refer to each other by id, never by path: the renderer computes a valid path from
//! the referring module when it writes text. That is what lets edits (removing a function,
//! changing a signature, retyping a const) keep every reference well-formed.
//!
//! Items live behind `Arc` so that an edited copy of a model shares everything it did not
//! touch with the original.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::Arc;

/// A fast, deterministic hasher for the generator's internal maps (FxHash's mixing step).
/// Map iteration order is never observable: maps are only used for lookups.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        for chunk in bytes.chunks(8) {
            let mut b = [0u8; 8];
            b[..chunk.len()].copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(b));
        }
    }

    fn write_u64(&mut self, x: u64) {
        self.0 = (self.0.rotate_left(5) ^ x).wrapping_mul(0x51_7c_c1_b7_27_22_0a_95);
    }

    fn write_u32(&mut self, x: u32) {
        self.write_u64(x as u64);
    }

    fn write_u8(&mut self, x: u8) {
        self.write_u64(x as u64);
    }

    fn write_usize(&mut self, x: usize) {
        self.write_u64(x as u64);
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

macro_rules! id {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub(crate) struct $name(pub u32);
        impl $name {
            #[allow(dead_code)]
            pub(crate) fn idx(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id!(
    /// A module; `ModId(0)` is the crate root.
    ModId
);
id!(FnId);
id!(ConstId);
id!(StructId);
id!(AliasId);
id!(
    /// A struct field, stable across edits that add or remove other fields.
    FieldId
);
id!(
    /// A local variable name; see [`local_name`].
    Local
);
id!(
    /// A loop label name; see [`label_name`].
    Label
);

/// A random byte stored at every reference; the renderer uses it to choose among the valid
/// ways of writing the path (import, `super::`, `crate::`, re-export, …).
pub(crate) type PathHint = u8;

pub(crate) const ROOT: ModId = ModId(0);

// ---------------------------------------------------------------------------------------
// Types

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum IntTy {
    I32,
    I64,
    U64,
    Usize,
}

impl IntTy {
    pub(crate) const ALL: [IntTy; 4] = [IntTy::I32, IntTy::I64, IntTy::U64, IntTy::Usize];

    pub(crate) fn name(self) -> &'static str {
        match self {
            IntTy::I32 => "i32",
            IntTy::I64 => "i64",
            IntTy::U64 => "u64",
            IntTy::Usize => "usize",
        }
    }

    pub(crate) fn bits(self) -> u32 {
        match self {
            IntTy::I32 => 32,
            _ => 64,
        }
    }

    pub(crate) fn signed(self) -> bool {
        matches!(self, IntTy::I32 | IntTy::I64)
    }

    pub(crate) fn min(self) -> i128 {
        match self {
            IntTy::I32 => i32::MIN as i128,
            IntTy::I64 => i64::MIN as i128,
            IntTy::U64 | IntTy::Usize => 0,
        }
    }

    pub(crate) fn max(self) -> i128 {
        match self {
            IntTy::I32 => i32::MAX as i128,
            IntTy::I64 => i64::MAX as i128,
            IntTy::U64 | IntTy::Usize => u64::MAX as i128,
        }
    }

    /// Two's-complement truncation of `v` to this type (what `as` does).
    pub(crate) fn wrap(self, v: i128) -> i128 {
        let bits = v as u128 as u64;
        match self {
            IntTy::I32 => bits as u32 as i32 as i128,
            IntTy::I64 => bits as i64 as i128,
            IntTy::U64 | IntTy::Usize => bits as i128,
        }
    }

    pub(crate) fn contains(self, v: i128) -> bool {
        self.min() <= v && v <= self.max()
    }
}

/// A type, canonical (aliases resolved, array lengths evaluated).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Ty {
    Int(IntTy),
    Bool,
    Unit,
    Struct(StructId),
    Array(Box<Ty>, u64),
}

impl Ty {
    pub(crate) fn int(&self) -> Option<IntTy> {
        match self {
            Ty::Int(t) => Some(*t),
            _ => None,
        }
    }
}

/// A type as written in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum TyExpr {
    Int(IntTy),
    Bool,
    Struct(StructId, PathHint),
    Alias(AliasId, PathHint),
    Array(Box<TyExpr>, LenExpr),
}

/// An array length as written: `4`, `LEN`, `LEN * 2`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum LenExpr {
    Lit(u64),
    Const(ConstId, PathHint),
    ConstMul(ConstId, PathHint, u64),
}

/// The target of `as`: an integer type or an alias of one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CastTy {
    Int(IntTy),
    Alias(AliasId, PathHint),
}

// ---------------------------------------------------------------------------------------
// Expressions and statements

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LitStyle {
    Dec,
    Underscored,
    Hex,
    Bin,
    Octal,
    /// Leading zeros: `007` is decimal 7.
    Zeros,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct IntLit {
    /// The magnitude; negative literals are `Unary(Neg, Int(..))`.
    pub value: u64,
    /// The type the generator intends; rendered as a suffix when `suffix` is set, otherwise
    /// rustc infers it from the context (the generator only omits it where that is sound).
    pub ty: IntTy,
    pub suffix: bool,
    pub style: LitStyle,
    /// Any other value of the type would also be valid here (not a mask, bound or index).
    pub free: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum UnOp {
    Neg,
    Not,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Shl,
    Shr,
    BitAnd,
    BitOr,
    BitXor,
    Eq,
    Ne,
    Lt,
    Gt,
    Le,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub(crate) fn token(self) -> &'static str {
        use BinOp::*;
        match self {
            Add => "+",
            Sub => "-",
            Mul => "*",
            Div => "/",
            Rem => "%",
            Shl => "<<",
            Shr => ">>",
            BitAnd => "&",
            BitOr => "|",
            BitXor => "^",
            Eq => "==",
            Ne => "!=",
            Lt => "<",
            Gt => ">",
            Le => "<=",
            Ge => ">=",
            And => "&&",
            Or => "||",
        }
    }

    /// Binding strength, as in Rust (higher binds tighter).
    pub(crate) fn prec(self) -> u8 {
        use BinOp::*;
        match self {
            Mul | Div | Rem => 12,
            Add | Sub => 11,
            Shl | Shr => 10,
            BitAnd => 9,
            BitXor => 8,
            BitOr => 7,
            Eq | Ne | Lt | Gt | Le | Ge => 6,
            And => 5,
            Or => 4,
        }
    }

    pub(crate) fn is_comparison(self) -> bool {
        use BinOp::*;
        matches!(self, Eq | Ne | Lt | Gt | Le | Ge)
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Expr {
    Int(IntLit),
    Bool(bool),
    Local(Local),
    Const(ConstId, PathHint),
    /// `i64::MAX`, `Alias::MIN`.
    Assoc {
        ty: CastTy,
        max: bool,
    },
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Cast(Box<Expr>, CastTy),
    Call(Box<Call>),
    StructLit(Box<StructLit>),
    Field(Box<Expr>, StructId, FieldId),
    Array(Vec<Expr>),
    Repeat(Box<Expr>, LenExpr),
    Index(Box<Expr>, Box<Expr>),
    Paren(Box<Expr>),
    Block(Box<Block>),
    If(Box<If>),
    Loop(Option<Label>, Box<Block>),
    While(Option<Label>, Box<Expr>, Box<Block>),
    For(Box<For>),
    Break(Option<Label>, Option<Box<Expr>>),
    Continue(Option<Label>),
    Return(Option<Box<Expr>>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Call {
    pub callee: FnId,
    pub hint: PathHint,
    pub args: Vec<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct StructLit {
    pub st: StructId,
    pub hint: PathHint,
    /// Written through this alias of the struct instead of its name.
    pub alias: Option<AliasId>,
    pub fields: Vec<FieldInit>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct FieldInit {
    pub field: FieldId,
    pub value: Expr,
    /// Written `name` instead of `name: name` (only when `value` is that local).
    pub shorthand: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct If {
    pub cond: Expr,
    pub then: Block,
    pub els: Option<Else>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Else {
    Block(Block),
    If(Box<If>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct For {
    pub label: Option<Label>,
    pub var: Local,
    pub mutable: bool,
    pub lo: Expr,
    pub hi: Expr,
    pub inclusive: bool,
    pub body: Block,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Block {
    pub stmts: Vec<Stmt>,
    pub tail: Option<Expr>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stmt {
    Let {
        name: Local,
        mutable: bool,
        ty: Option<TyExpr>,
        init: Expr,
        /// A `///` doc comment before the statement.
        doc: Option<String>,
    },
    /// `let _ = e;`
    LetWild(Expr),
    /// `place = value;` or `place op= value;`
    Assign {
        place: Place,
        op: Option<BinOp>,
        value: Expr,
    },
    /// An expression statement; block-like ones are written without `;`.
    Expr(Expr),
    Print(Print),
    Comment(Comment),
    /// An empty line.
    Blank,
    /// Verbatim text (used only by error injection).
    Raw(String),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Place {
    Local(Local),
    Field(Box<Place>, StructId, FieldId),
    Index(Box<Place>, Box<Expr>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Print {
    /// Literal text pieces around the holes: `pieces.len() == args.len() + 1`. The text
    /// is written with `{` and `}` escaped.
    pub pieces: Vec<String>,
    pub args: Vec<Expr>,
    pub trailing_comma: bool,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Comment {
    /// `// text`
    Line(String),
    /// `/* text */`, possibly containing a nested `/* */`.
    Block(String),
    /// `//// text` (a plain comment, not a doc comment).
    FourSlash(String),
}

// ---------------------------------------------------------------------------------------
// Items

#[derive(Clone, Debug)]
pub(crate) struct Param {
    pub name: Local,
    pub mutable: bool,
    pub ty: TyExpr,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FnKind {
    Normal,
    /// Bounded self-recursion on its first parameter (`u64`, decreasing to 0).
    Recursive,
    /// Prints; called only from `main`.
    Printer,
    Main,
}

/// Decoration that changes no tokens or only comments: the target of Whitespace and
/// Comment edits.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Trivia {
    pub blank_lines_before: u8,
    pub comment: Option<Comment>,
    /// `/// text` before the item.
    pub doc: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct FnDef {
    pub name: String,
    pub module: ModId,
    pub is_pub: bool,
    pub kind: FnKind,
    pub params: Vec<Param>,
    pub ret: Option<TyExpr>,
    pub body: Block,
    /// An upper bound on the evaluation steps of one call, callees included.
    pub cost: u64,
    /// An upper bound on the call depth of one call (1 for a leaf).
    pub depth: u32,
    pub trivia: Trivia,
    /// Extra indentation (in spaces) of the body: a Whitespace edit.
    pub indent_extra: u8,
    pub removed: bool,
}

impl FnDef {
    /// A function with this signature and an empty body, which is generated once the
    /// function is in the model (so that the body can call it); the cost and depth of a
    /// leaf, no trivia.
    pub(crate) fn declared(
        name: String,
        module: ModId,
        is_pub: bool,
        kind: FnKind,
        params: Vec<Param>,
        ret: Option<TyExpr>,
    ) -> FnDef {
        FnDef {
            name,
            module,
            is_pub,
            kind,
            params,
            ret,
            body: Block::default(),
            cost: 1,
            depth: 1,
            trivia: Trivia::default(),
            indent_extra: 0,
            removed: false,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) struct ConstDef {
    pub name: String,
    pub module: ModId,
    pub is_pub: bool,
    pub ty: TyExpr,
    pub init: Expr,
    /// The evaluated value (kept up to date by edits).
    pub value: crate::consteval::Val,
    /// Used in an array length: its value and type are part of other types.
    pub in_types: bool,
    pub trivia: Trivia,
    pub removed: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct FieldDef {
    pub id: FieldId,
    pub name: String,
    pub is_pub: bool,
    pub ty: TyExpr,
    pub doc: Option<String>,
}

#[derive(Clone, Debug)]
pub(crate) struct StructDef {
    pub name: String,
    pub module: ModId,
    pub is_pub: bool,
    pub fields: Vec<FieldDef>,
    pub next_field: u32,
    /// `#[derive(Copy, Clone)]` instead of `#[derive(Clone, Copy)]`.
    pub derive_swapped: bool,
    pub trailing_comma: bool,
    pub trivia: Trivia,
}

impl StructDef {
    pub(crate) fn field(&self, id: FieldId) -> &FieldDef {
        self.fields
            .iter()
            .find(|f| f.id == id)
            .expect("field of struct")
    }
}

#[derive(Clone, Debug)]
pub(crate) struct AliasDef {
    pub name: String,
    pub module: ModId,
    pub is_pub: bool,
    pub target: TyExpr,
    pub trivia: Trivia,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Layout {
    /// `mod m { … }` inside the parent's text.
    Inline,
    /// `mod m;` loaded from `m.rs`.
    File,
    /// `mod m;` loaded from `m/mod.rs`.
    ModRs,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum ItemKey {
    Fn(FnId),
    Const(ConstId),
    Struct(StructId),
    Alias(AliasId),
    Mod(ModId),
}

#[derive(Clone, Debug)]
pub(crate) enum Item {
    Fn(FnId),
    Const(ConstId),
    Struct(StructId),
    Alias(AliasId),
    Mod(ModId),
    /// Verbatim text (used only by mutations).
    Raw(String),
}

/// `use path;`, `use path as alias;` or `pub use …` (a re-export).
#[derive(Clone, Debug)]
pub(crate) struct Import {
    pub target: ItemKey,
    pub alias: Option<String>,
    pub is_pub: bool,
    pub hint: PathHint,
}

#[derive(Clone, Debug)]
pub(crate) struct Module {
    pub name: String,
    pub parent: Option<ModId>,
    pub is_pub: bool,
    pub layout: Layout,
    pub depth: u32,
    pub items: Vec<Item>,
    pub imports: Vec<Import>,
    pub inner_doc: Option<String>,
}

/// An error introduced by an `IntroduceError` edit, removed by the next `FixError`.
#[derive(Clone, Debug)]
pub(crate) struct PendingError {
    pub host: FnId,
    pub description: String,
}

#[derive(Clone, Debug)]
pub(crate) struct Model {
    pub mods: Vec<Arc<Module>>,
    pub fns: Vec<Arc<FnDef>>,
    pub consts: Vec<Arc<ConstDef>>,
    pub structs: Vec<Arc<StructDef>>,
    pub aliases: Vec<Arc<AliasDef>>,
    pub main: FnId,
    pub pending_error: Option<PendingError>,
    /// Counter for names created by edits, so they never collide.
    pub fresh: u32,
    /// Index of the `pub use` declarations: item → (re-exporting module, exported name).
    /// Derived from `mods`; see [`Model::rebuild_reexports`].
    pub reexports: Arc<FastMap<ItemKey, Vec<(ModId, String)>>>,
}

// ---------------------------------------------------------------------------------------
// Names

const LOCAL_NAMES: &[&str] = &[
    "x", "y", "z", "acc", "sum", "tmp", "n", "m", "k", "idx", "total", "prod", "flag", "cur",
    "prev", "next", "lo", "hi", "mid", "val", "res", "cnt", "step", "delta", "base", "p", "q", "r",
    "s", "t", "w", "h", "len", "id", "seed", "key", "a", "b", "c", "d", "e", "g", "u", "width",
    "depth", "score", "count", "left", "right", "top", "size", "level", "weight",
];

/// Local names are shared with struct field names (for shorthand literals); all of them are
/// lower case without digits, or `v<n>`, so they never collide with items.
pub(crate) fn local_name(l: Local) -> std::borrow::Cow<'static, str> {
    match LOCAL_NAMES.get(l.idx()) {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(format!("v{}", l.0 as usize - LOCAL_NAMES.len())),
    }
}

pub(crate) fn local_count_fixed() -> u32 {
    LOCAL_NAMES.len() as u32
}

/// The `Local` whose name is `name`, if it is one of the fixed names.
pub(crate) fn local_by_name(name: &str) -> Option<Local> {
    LOCAL_NAMES
        .iter()
        .position(|n| *n == name)
        .map(|i| Local(i as u32))
}

const LABEL_NAMES: &[&str] = &["outer", "inner", "scan", "rows", "cols", "search", "retry"];

pub(crate) fn label_name(l: Label) -> std::borrow::Cow<'static, str> {
    match LABEL_NAMES.get(l.idx()) {
        Some(s) => std::borrow::Cow::Borrowed(s),
        None => std::borrow::Cow::Owned(format!("l{}", l.0)),
    }
}

// ---------------------------------------------------------------------------------------
// Queries

impl Model {
    pub(crate) fn module(&self, m: ModId) -> &Module {
        &self.mods[m.idx()]
    }

    pub(crate) fn func(&self, f: FnId) -> &FnDef {
        &self.fns[f.idx()]
    }

    pub(crate) fn konst(&self, c: ConstId) -> &ConstDef {
        &self.consts[c.idx()]
    }

    pub(crate) fn strukt(&self, s: StructId) -> &StructDef {
        &self.structs[s.idx()]
    }

    pub(crate) fn alias(&self, a: AliasId) -> &AliasDef {
        &self.aliases[a.idx()]
    }

    /// Is `m` equal to `anc` or one of its descendants?
    pub(crate) fn is_under(&self, mut m: ModId, anc: ModId) -> bool {
        loop {
            if m == anc {
                return true;
            }
            match self.mods[m.idx()].parent {
                Some(p) => m = p,
                None => return false,
            }
        }
    }

    /// The module of an item and whether it is declared `pub`.
    pub(crate) fn item_home(&self, key: ItemKey) -> (ModId, bool) {
        match key {
            ItemKey::Fn(f) => (self.func(f).module, self.func(f).is_pub),
            ItemKey::Const(c) => (self.konst(c).module, self.konst(c).is_pub),
            ItemKey::Struct(s) => (self.strukt(s).module, self.strukt(s).is_pub),
            ItemKey::Alias(a) => (self.alias(a).module, self.alias(a).is_pub),
            ItemKey::Mod(m) => {
                let md = self.module(m);
                (md.parent.unwrap_or(ROOT), md.is_pub)
            }
        }
    }

    pub(crate) fn item_name(&self, key: ItemKey) -> &str {
        match key {
            ItemKey::Fn(f) => &self.func(f).name,
            ItemKey::Const(c) => &self.konst(c).name,
            ItemKey::Struct(s) => &self.strukt(s).name,
            ItemKey::Alias(a) => &self.alias(a).name,
            ItemKey::Mod(m) => &self.module(m).name,
        }
    }

    /// Rust's visibility rule: an item declared in `home` is visible from `from` if it is
    /// `pub` or `from` is inside `home`.
    pub(crate) fn visible(&self, from: ModId, home: ModId, is_pub: bool) -> bool {
        is_pub || self.is_under(from, home)
    }

    /// Can a path descend from `prefix` (a module `from` can name) to an item declared in
    /// `home` with visibility `is_pub`? Every module segment below `prefix` and the item
    /// itself must be visible from `from`.
    pub(crate) fn path_ok(&self, from: ModId, prefix: ModId, home: ModId, is_pub: bool) -> bool {
        if !self.is_under(home, prefix) || !self.visible(from, home, is_pub) {
            return false;
        }
        let mut m = home;
        while m != prefix {
            let md = self.module(m);
            let parent = md.parent.expect("below prefix");
            if !self.visible(from, parent, md.is_pub) {
                return false;
            }
            m = parent;
        }
        true
    }

    /// Can `from` name this item by a `crate::` path (equivalently a `super::` path)?
    pub(crate) fn reachable(&self, from: ModId, key: ItemKey) -> bool {
        let (home, is_pub) = self.item_home(key);
        self.path_ok(from, ROOT, home, is_pub)
    }

    /// Can `from` name this item at all: directly, or through a `pub use` re-export?
    pub(crate) fn nameable(&self, from: ModId, key: ItemKey) -> bool {
        self.reachable(from, key) || self.reexport_paths(from, key).next().is_some()
    }

    /// Modules that re-export `key` (`pub use`) and are reachable from `from`, with the
    /// exported name. The exported name is a `pub` item of the re-exporting module.
    pub(crate) fn reexport_paths<'a>(
        &'a self,
        from: ModId,
        key: ItemKey,
    ) -> impl Iterator<Item = (ModId, &'a str)> + 'a {
        self.reexporters(key)
            .filter(move |(r, _)| self.path_ok(from, ROOT, *r, true))
    }

    /// Every `pub use` of `key`, as (module, exported name).
    pub(crate) fn reexporters<'a>(
        &'a self,
        key: ItemKey,
    ) -> impl Iterator<Item = (ModId, &'a str)> + 'a {
        self.reexports
            .get(&key)
            .into_iter()
            .flatten()
            .map(|(m, name)| (*m, name.as_str()))
    }

    /// Recomputes the index of `pub use` declarations (after edits that change imports).
    pub(crate) fn rebuild_reexports(&mut self) {
        let mut idx: FastMap<ItemKey, Vec<(ModId, String)>> = FastMap::default();
        for (i, md) in self.mods.iter().enumerate() {
            for imp in md.imports.iter().filter(|i| i.is_pub) {
                let name = imp
                    .alias
                    .clone()
                    .unwrap_or_else(|| self.item_name(imp.target).to_string());
                idx.entry(imp.target)
                    .or_default()
                    .push((ModId(i as u32), name));
            }
        }
        self.reexports = Arc::new(idx);
    }

    /// Can values of this type appear in expressions in `from` (rustc's type privacy)?
    pub(crate) fn ty_usable(&self, from: ModId, ty: &Ty) -> bool {
        match ty {
            Ty::Struct(s) => {
                let sd = self.strukt(*s);
                self.visible(from, sd.module, sd.is_pub)
            }
            Ty::Array(elem, _) => self.ty_usable(from, elem),
            _ => true,
        }
    }

    pub(crate) fn field_visible(&self, from: ModId, s: StructId, f: &FieldDef) -> bool {
        self.visible(from, self.strukt(s).module, f.is_pub)
    }

    /// The canonical type of a written type.
    pub(crate) fn canon(&self, t: &TyExpr) -> Ty {
        match t {
            TyExpr::Int(i) => Ty::Int(*i),
            TyExpr::Bool => Ty::Bool,
            TyExpr::Struct(s, _) => Ty::Struct(*s),
            TyExpr::Alias(a, _) => self.canon(&self.alias(*a).target),
            TyExpr::Array(elem, len) => Ty::Array(Box::new(self.canon(elem)), self.len_value(len)),
        }
    }

    pub(crate) fn len_value(&self, len: &LenExpr) -> u64 {
        match len {
            LenExpr::Lit(n) => *n,
            LenExpr::Const(c, _) => self.konst(*c).value.as_u64(),
            LenExpr::ConstMul(c, _, k) => self.konst(*c).value.as_u64() * k,
        }
    }

    pub(crate) fn cast_ty(&self, c: CastTy) -> IntTy {
        match c {
            CastTy::Int(t) => t,
            CastTy::Alias(a, _) => match self.canon(&self.alias(a).target) {
                Ty::Int(t) => t,
                other => panic!("cast through a non-integer alias: {other:?}"),
            },
        }
    }

    pub(crate) fn ret_ty(&self, f: FnId) -> Ty {
        match &self.func(f).ret {
            Some(t) => self.canon(t),
            None => Ty::Unit,
        }
    }

    /// The struct types a signature or declaration mentions, for type privacy checks.
    pub(crate) fn fn_sig_usable(&self, from: ModId, f: FnId) -> bool {
        let fd = self.func(f);
        fd.params
            .iter()
            .all(|p| self.ty_usable(from, &self.canon(&p.ty)))
            && self.ty_usable(from, &self.ret_ty(f))
    }

    /// The modules whose text lives in the file of `m` (the nearest non-inline ancestor).
    pub(crate) fn file_of(&self, mut m: ModId) -> ModId {
        while m != ROOT && self.module(m).layout == Layout::Inline {
            m = self.module(m).parent.expect("non-root has a parent");
        }
        m
    }

    /// The directory (with trailing `/`, or empty) that holds files of `m`'s child modules.
    pub(crate) fn dir_of(&self, m: ModId) -> String {
        if m == ROOT {
            return String::new();
        }
        let md = self.module(m);
        let mut d = self.dir_of(md.parent.expect("non-root has a parent"));
        d.push_str(&md.name);
        d.push('/');
        d
    }

    /// The path of the file a non-inline module is loaded from.
    pub(crate) fn file_path(&self, m: ModId) -> String {
        if m == ROOT {
            return "main.rs".to_string();
        }
        let md = self.module(m);
        let mut p = self.dir_of(md.parent.expect("non-root has a parent"));
        match md.layout {
            Layout::File => {
                p.push_str(&md.name);
                p.push_str(".rs");
            }
            Layout::ModRs => {
                p.push_str(&md.name);
                p.push_str("/mod.rs");
            }
            Layout::Inline => panic!("inline module has no file"),
        }
        p
    }

    /// The modules that own a file, root first, in id order.
    pub(crate) fn file_modules(&self) -> Vec<ModId> {
        (0..self.mods.len() as u32)
            .map(ModId)
            .filter(|&m| m == ROOT || self.module(m).layout != Layout::Inline)
            .collect()
    }

    pub(crate) fn live_fns(&self) -> impl Iterator<Item = FnId> + '_ {
        (0..self.fns.len() as u32)
            .map(FnId)
            .filter(|f| !self.func(*f).removed)
    }

    pub(crate) fn live_consts(&self) -> impl Iterator<Item = ConstId> + '_ {
        (0..self.consts.len() as u32)
            .map(ConstId)
            .filter(|c| !self.konst(*c).removed)
    }
}

// ---------------------------------------------------------------------------------------
// Traversal

/// A node directly inside an expression: a subexpression or a block.
pub(crate) enum Child<'a> {
    Expr(&'a Expr),
    Block(&'a Block),
}

/// [`Child`], mutable.
pub(crate) enum ChildMut<'a> {
    Expr(&'a mut Expr),
    Block(&'a mut Block),
}

/// Defines the one-level visitors: on `Expr` (its children, in source order, the blocks of
/// an `else if` chain included), and on `Block`, `Stmt` and `Place` (the expressions they
/// hold directly). Expanded twice, for shared and for mutable references, so the two
/// traversals cannot disagree about order.
macro_rules! one_level_visitors {
    ($child:ident, $child_if:ident, $exprs:ident, $Child:ident, $iter:ident, $($mut:tt)?) => {
        impl Expr {
            /// Calls `on` on each expression and block directly inside this one, in
            /// source order.
            pub(crate) fn $child(&$($mut)? self, on: &mut dyn FnMut($Child<'_>)) {
                match self {
                    Expr::Int(_)
                    | Expr::Bool(_)
                    | Expr::Local(_)
                    | Expr::Const(..)
                    | Expr::Assoc { .. }
                    | Expr::Continue(_) => {}
                    Expr::Unary(_, e)
                    | Expr::Cast(e, _)
                    | Expr::Paren(e)
                    | Expr::Repeat(e, _)
                    | Expr::Field(e, ..) => on($Child::Expr(e)),
                    Expr::Binary(_, a, b) | Expr::Index(a, b) => {
                        on($Child::Expr(a));
                        on($Child::Expr(b));
                    }
                    Expr::Call(c) => c.args.$iter().for_each(|a| on($Child::Expr(a))),
                    Expr::StructLit(s) => {
                        s.fields.$iter().for_each(|fi| on($Child::Expr(&$($mut)? fi.value)))
                    }
                    Expr::Array(es) => es.$iter().for_each(|e| on($Child::Expr(e))),
                    Expr::Block(b) | Expr::Loop(_, b) => on($Child::Block(b)),
                    Expr::If(i) => i.$child_if(on),
                    Expr::While(_, c, b) => {
                        on($Child::Expr(c));
                        on($Child::Block(b));
                    }
                    Expr::For(fr) => {
                        on($Child::Expr(&$($mut)? fr.lo));
                        on($Child::Expr(&$($mut)? fr.hi));
                        on($Child::Block(&$($mut)? fr.body));
                    }
                    Expr::Break(_, v) | Expr::Return(v) => {
                        if let Some(v) = v {
                            on($Child::Expr(v))
                        }
                    }
                }
            }
        }

        impl If {
            fn $child_if(&$($mut)? self, on: &mut dyn FnMut($Child<'_>)) {
                on($Child::Expr(&$($mut)? self.cond));
                on($Child::Block(&$($mut)? self.then));
                match &$($mut)? self.els {
                    Some(Else::Block(b)) => on($Child::Block(b)),
                    Some(Else::If(i)) => i.$child_if(on),
                    None => {}
                }
            }
        }

        impl Block {
            /// Calls `f` on each expression directly held by this block's statements and
            /// tail (not nested ones).
            pub(crate) fn $exprs(&$($mut)? self, f: &mut dyn FnMut(&$($mut)? Expr)) {
                self.stmts.$iter().for_each(|s| s.$exprs(f));
                if let Some(t) = &$($mut)? self.tail {
                    f(t);
                }
            }
        }

        impl Stmt {
            /// Calls `f` on each expression directly held by this statement (not nested
            /// ones).
            pub(crate) fn $exprs(&$($mut)? self, f: &mut dyn FnMut(&$($mut)? Expr)) {
                match self {
                    Stmt::Let { init, .. } => f(init),
                    Stmt::LetWild(e) | Stmt::Expr(e) => f(e),
                    Stmt::Assign { place, value, .. } => {
                        f(value);
                        place.$exprs(f);
                    }
                    Stmt::Print(p) => p.args.$iter().for_each(f),
                    Stmt::Comment(_) | Stmt::Blank | Stmt::Raw(_) => {}
                }
            }
        }

        impl Place {
            /// Calls `f` on each index expression of this place.
            fn $exprs(&$($mut)? self, f: &mut dyn FnMut(&$($mut)? Expr)) {
                match self {
                    Place::Local(_) => {}
                    Place::Field(p, ..) => p.$exprs(f),
                    Place::Index(p, i) => {
                        p.$exprs(f);
                        f(i);
                    }
                }
            }
        }
    };
}

one_level_visitors!(
    for_each_child,
    for_each_child_if,
    for_each_expr,
    Child,
    iter,
);
one_level_visitors!(
    for_each_child_mut,
    for_each_child_if_mut,
    for_each_expr_mut,
    ChildMut,
    iter_mut,
    mut
);

impl Expr {
    /// Calls `f` on this expression and every expression inside it, including the
    /// expressions inside nested blocks and statements, in pre-order.
    pub(crate) fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        self.for_each_child(&mut |c| match c {
            Child::Expr(e) => e.walk(f),
            Child::Block(b) => b.walk(f),
        });
    }

    /// Mutable post-order traversal: children first, then `f` on the node itself.
    pub(crate) fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        self.for_each_child_mut(&mut |c| match c {
            ChildMut::Expr(e) => e.walk_mut(f),
            ChildMut::Block(b) => b.walk_mut(f),
        });
        f(self);
    }

    /// Calls `f` on every block directly or indirectly inside this expression.
    pub(crate) fn walk_blocks_mut(&mut self, f: &mut dyn FnMut(&mut Block)) {
        self.for_each_child_mut(&mut |c| match c {
            ChildMut::Expr(e) => e.walk_blocks_mut(f),
            ChildMut::Block(b) => b.walk_blocks_mut(f),
        });
    }

    pub(crate) fn is_block_like(&self) -> bool {
        matches!(
            self,
            Expr::Block(_) | Expr::If(_) | Expr::Loop(..) | Expr::While(..) | Expr::For(_)
        )
    }
}

impl Block {
    /// [`Expr::walk`] on every expression of the block.
    pub(crate) fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        self.for_each_expr(&mut |e| e.walk(f));
    }

    /// [`Expr::walk_mut`] on every expression of the block.
    pub(crate) fn walk_mut(&mut self, f: &mut dyn FnMut(&mut Expr)) {
        self.for_each_expr_mut(&mut |e| e.walk_mut(f));
    }

    /// Calls `f` on every block nested in this one (this one included), pre-order.
    pub(crate) fn walk_blocks_mut(&mut self, f: &mut dyn FnMut(&mut Block)) {
        f(self);
        self.for_each_expr_mut(&mut |e| e.walk_blocks_mut(f));
    }
}

impl Place {
    pub(crate) fn root(&self) -> Local {
        match self {
            Place::Local(l) => *l,
            Place::Field(p, ..) | Place::Index(p, _) => p.root(),
        }
    }
}

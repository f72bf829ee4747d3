//! The syntax tree.
//!
//! A file parses into a list of [`Item`]s. Each item owns an [`Arena`] holding every
//! expression, statement and type of that item (its signature's array lengths included),
//! addressed by dense indices. All spans inside an item are relative to the item's first
//! byte, which is [`Item::offset`] in the file: moving an item leaves everything inside it
//! equal, and `offset` is the one field a fingerprint of the item must skip.
//!
//! The tree is a faithful picture of the source, errors included: the parser never
//! fails, it inserts [`ExprKind::Missing`] / [`TypeKind::Error`] where something could not
//! be parsed, and reports why in its error list.

use std::sync::Arc;

use crate::intern::Symbol;
use crate::span::Span;

/// The result of parsing one file.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct SourceFileAst {
    pub items: Vec<Item>,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Visibility {
    Private,
    Pub,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Item {
    /// Absolute byte offset of the item's first token (doc comments and attributes
    /// included) in its file. Every other span of the item is relative to it.
    pub offset: u32,
    /// The whole item, relative (so `lo == 0`).
    pub span: Span,
    pub vis: Visibility,
    pub kind: ItemKind,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum ItemKind {
    Fn(Arc<FnDef>),
    Const(Arc<ConstDef>),
    Struct(Arc<StructDef>),
    TypeAlias(Arc<TypeAliasDef>),
    Mod(Arc<ModDef>),
    Use(Arc<UseDef>),
}

impl Item {
    /// The name the item defines; `None` for `use` items.
    pub fn name(&self) -> Option<Ident> {
        match &self.kind {
            ItemKind::Fn(d) => Some(d.name),
            ItemKind::Const(d) => Some(d.name),
            ItemKind::Struct(d) => Some(d.name),
            ItemKind::TypeAlias(d) => Some(d.name),
            ItemKind::Mod(d) => Some(d.name),
            ItemKind::Use(_) => None,
        }
    }
}

/// A name with its (relative) span.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ident {
    pub name: Symbol,
    pub span: Span,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FnDef {
    pub name: Ident,
    pub params: Vec<Param>,
    /// `None` for no `->` (returns `()`).
    pub ret: Option<TypeId>,
    /// A `Block` expression.
    pub body: ExprId,
    pub arena: Arena,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Param {
    pub mutable: bool,
    pub name: Ident,
    pub ty: TypeId,
    pub span: Span,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ConstDef {
    pub name: Ident,
    pub ty: TypeId,
    pub value: ExprId,
    pub arena: Arena,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct StructDef {
    pub name: Ident,
    pub fields: Vec<FieldDef>,
    pub arena: Arena,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct FieldDef {
    pub vis: Visibility,
    pub name: Ident,
    pub ty: TypeId,
    pub span: Span,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TypeAliasDef {
    pub name: Ident,
    pub ty: TypeId,
    pub arena: Arena,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct ModDef {
    pub name: Ident,
    /// `Some` for an inline module `mod m { … }`, `None` for `mod m;` (a file).
    pub items: Option<Vec<Item>>,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct UseDef {
    pub tree: UseTree,
}

/// `a::b`, `a::b as c`, `a::{b, c::d as e}`, `a::{self, b}`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct UseTree {
    /// May be empty inside braces only for `self`; `self` is a segment of kind `SelfMod`.
    pub prefix: Path,
    pub kind: UseTreeKind,
    pub span: Span,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum UseTreeKind {
    /// `prefix` or `prefix as rename`.
    Simple { rename: Option<Ident> },
    /// `prefix::{trees}`.
    Nested(Vec<UseTree>),
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PathSegmentKind {
    Name(Symbol),
    /// `crate`
    Crate,
    /// `self`
    SelfMod,
    /// `super`
    Super,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PathSegment {
    pub kind: PathSegmentKind,
    pub span: Span,
}

/// A path that owns its segments: a `use` tree's, or one made outside the parser. The
/// paths of an item's bodies and types are [`ArenaPath`]s.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Path {
    pub segments: PathSegments,
    pub span: Span,
}

impl Path {
    pub fn as_ref(&self) -> PathRef<'_> {
        PathRef {
            segments: &self.segments,
            span: self.span,
        }
    }
}

/// A path as name resolution reads it: its segments and its span, wherever they are kept.
#[derive(Clone, Copy, Debug)]
pub struct PathRef<'a> {
    pub segments: &'a [PathSegment],
    pub span: Span,
}

/// A path of an item's bodies or types, owning no allocation (nor does the arena's drop
/// visit its nodes). Read as `arena.path(&p)`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArenaPath {
    /// A path of one segment spanning the whole path (nearly every path), kept in the
    /// node itself.
    One(PathSegment),
    /// Any other path (several segments, or a span beyond its one segment's, or no
    /// segment after an error): its segments are a range of [`Arena::segments`].
    Many(SegmentList, Span),
}

impl ArenaPath {
    /// The number of segments.
    pub fn len(&self) -> usize {
        match self {
            ArenaPath::One(_) => 1,
            ArenaPath::Many(list, _) => list.len as usize,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn span(&self) -> Span {
        match self {
            ArenaPath::One(seg) => seg.span,
            ArenaPath::Many(_, span) => *span,
        }
    }
}

/// The segments of a [`Path`]: a slice, stored without a heap allocation when there is
/// one segment (nearly every path). Serialized, hashed, compared and printed exactly as a
/// `Vec<PathSegment>` would be.
#[derive(Clone)]
pub struct PathSegments(SegmentsRepr);

#[derive(Clone)]
enum SegmentsRepr {
    One(PathSegment),
    Many(Vec<PathSegment>),
}

impl PathSegments {
    /// A one-segment path's segments (no allocation).
    pub fn one(seg: PathSegment) -> PathSegments {
        PathSegments(SegmentsRepr::One(seg))
    }

    pub fn as_slice(&self) -> &[PathSegment] {
        match &self.0 {
            SegmentsRepr::One(seg) => std::slice::from_ref(seg),
            SegmentsRepr::Many(v) => v,
        }
    }
}

impl Default for PathSegments {
    fn default() -> PathSegments {
        PathSegments(SegmentsRepr::Many(Vec::new()))
    }
}

impl From<Vec<PathSegment>> for PathSegments {
    fn from(v: Vec<PathSegment>) -> PathSegments {
        match v.as_slice() {
            [seg] => PathSegments::one(*seg),
            _ => PathSegments(SegmentsRepr::Many(v)),
        }
    }
}

impl std::ops::Deref for PathSegments {
    type Target = [PathSegment];
    fn deref(&self) -> &[PathSegment] {
        self.as_slice()
    }
}

impl PartialEq for PathSegments {
    fn eq(&self, other: &PathSegments) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for PathSegments {}

impl std::hash::Hash for PathSegments {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

impl std::fmt::Debug for PathSegments {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.as_slice()).finish()
    }
}

impl serde::Serialize for PathSegments {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.as_slice())
    }
}

impl<'de> serde::Deserialize<'de> for PathSegments {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<PathSegments, D::Error> {
        Vec::<PathSegment>::deserialize(d).map(PathSegments::from)
    }
}

// ---------------------------------------------------------------------------------------
// Bodies: expressions, statements and types live in the item's arena.

#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct ExprId(pub u32);
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct StmtId(pub u32);
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct TypeId(pub u32);

/// Defines the id of a node kept in a side array of the item's [`Arena`] rather than in
/// the expression itself (a large and rare payload: a `for` loop's parts, a struct
/// literal's path and fields), read as `arena[id]`: every
/// [`Expr`] is then as small as its common kinds need.
macro_rules! arena_node {
    ($(#[$doc:meta])* $name:ident of $elem:ty, in $field:ident, by $alloc:ident) => {
        $(#[$doc])*
        #[derive(
            serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash,
        )]
        pub struct $name(pub u32);

        impl std::ops::Index<$name> for Arena {
            type Output = $elem;
            #[inline]
            fn index(&self, id: $name) -> &$elem {
                &self.$field[id.0 as usize]
            }
        }

        impl Arena {
            #[inline]
            pub fn $alloc(&mut self, node: $elem) -> $name {
                self.$field.push(node);
                $name(self.$field.len() as u32 - 1)
            }
        }
    };
}

arena_node! {
    /// A `for` loop of an item ([`ExprKind::For`]).
    ForId of ForLoop, in for_loops, by alloc_for
}
arena_node! {
    /// A struct literal of an item ([`ExprKind::StructLit`]).
    StructLitId of StructLit, in struct_lits, by alloc_struct_lit
}

/// Defines a list of an item's syntax: `start..start + len` of one side array of the
/// item's [`Arena`], read as `&arena[list]` (the arena's `Index` impl).
macro_rules! arena_list {
    ($(#[$doc:meta])* $name:ident of $elem:ty, in $field:ident) => {
        $(#[$doc])*
        #[derive(
            serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash,
        )]
        pub struct $name {
            pub start: u32,
            pub len: u32,
        }

        impl $name {
            pub fn len(self) -> usize {
                self.len as usize
            }

            pub fn is_empty(self) -> bool {
                self.len == 0
            }
        }

        impl std::ops::Index<$name> for Arena {
            type Output = [$elem];
            fn index(&self, list: $name) -> &[$elem] {
                let start = list.start as usize;
                &self.$field[start..start + list.len as usize]
            }
        }
    };
}

arena_list! {
    /// A list of expressions of one item (call arguments, array elements, `println!`
    /// arguments).
    ExprList of ExprId, in expr_lists
}
arena_list! {
    /// A block's statements.
    StmtList of StmtId, in stmt_lists
}
arena_list! {
    /// A struct literal's fields.
    FieldList of FieldInit, in field_inits
}
arena_list! {
    /// A path's segments ([`ArenaPath::Many`]).
    SegmentList of PathSegment, in segments
}
arena_list! {
    /// A `println!` format string's pieces.
    PieceList of FmtPiece, in fmt_pieces
}

/// The nodes of one item. The child lists of nodes (a block's statements, a call's
/// arguments, a path's segments, …) are ranges of side arrays, so that an item's syntax
/// is a handful of vectors whatever its number of nodes, not one vector per list, and its
/// nodes own nothing (they are `Copy`): dropping an arena frees its vectors without
/// visiting a node.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Arena {
    pub exprs: Vec<Expr>,
    pub stmts: Vec<Stmt>,
    pub types: Vec<Type>,
    /// The elements of every [`ExprList`] of the item, each list contiguous.
    pub expr_lists: Vec<ExprId>,
    /// The statements of every [`StmtList`] of the item, each list contiguous.
    pub stmt_lists: Vec<StmtId>,
    /// The fields of every [`FieldList`] of the item, each list contiguous.
    pub field_inits: Vec<FieldInit>,
    /// The segments of every [`ArenaPath::Many`] of the item, each path's contiguous.
    pub segments: Vec<PathSegment>,
    /// The pieces of every `println!` format string of the item ([`PieceList`]).
    pub fmt_pieces: Vec<FmtPiece>,
    /// The values of the item's integer literals that do not fit in 64 bits
    /// ([`IntLitRef`]).
    pub wide_ints: Vec<LitValue>,
    /// The `for` loops of the item ([`ForId`]).
    pub for_loops: Vec<ForLoop>,
    /// The struct literals of the item ([`StructLitId`]).
    pub struct_lits: Vec<StructLit>,
}

impl Arena {
    #[inline]
    pub fn alloc_expr(&mut self, e: Expr) -> ExprId {
        self.exprs.push(e);
        ExprId(self.exprs.len() as u32 - 1)
    }
    #[inline]
    pub fn alloc_stmt(&mut self, s: Stmt) -> StmtId {
        self.stmts.push(s);
        StmtId(self.stmts.len() as u32 - 1)
    }
    #[inline]
    pub fn alloc_type(&mut self, t: Type) -> TypeId {
        self.types.push(t);
        TypeId(self.types.len() as u32 - 1)
    }
    /// Appends `items` as one list.
    #[inline]
    pub fn alloc_expr_list(&mut self, items: &[ExprId]) -> ExprList {
        let start = self.expr_lists.len() as u32;
        self.expr_lists.extend_from_slice(items);
        ExprList {
            start,
            len: items.len() as u32,
        }
    }
    /// Appends `items` as one list.
    #[inline]
    pub fn alloc_field_list(&mut self, items: &[FieldInit]) -> FieldList {
        let start = self.field_inits.len() as u32;
        self.field_inits.extend_from_slice(items);
        FieldList {
            start,
            len: items.len() as u32,
        }
    }
    /// Appends `items` as one list.
    #[inline]
    pub fn alloc_stmt_list(&mut self, items: &[StmtId]) -> StmtList {
        let start = self.stmt_lists.len() as u32;
        self.stmt_lists.extend_from_slice(items);
        StmtList {
            start,
            len: items.len() as u32,
        }
    }
}

impl Arena {
    /// The segments and span of `path`, a path of this arena's nodes.
    #[inline]
    pub fn path<'a>(&'a self, path: &'a ArenaPath) -> PathRef<'a> {
        match path {
            ArenaPath::One(seg) => PathRef {
                segments: std::slice::from_ref(seg),
                span: seg.span,
            },
            ArenaPath::Many(list, span) => PathRef {
                segments: &self[*list],
                span: *span,
            },
        }
    }
}

impl std::ops::Index<ExprId> for Arena {
    type Output = Expr;
    fn index(&self, id: ExprId) -> &Expr {
        &self.exprs[id.0 as usize]
    }
}
impl std::ops::Index<StmtId> for Arena {
    type Output = Stmt;
    fn index(&self, id: StmtId) -> &Stmt {
        &self.stmts[id.0 as usize]
    }
}
impl std::ops::Index<TypeId> for Arena {
    type Output = Type;
    fn index(&self, id: TypeId) -> &Type {
        &self.types[id.0 as usize]
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Type {
    pub kind: TypeKind,
    pub span: Span,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TypeKind {
    /// `i32`, `Point`, `crate::geo::Point`, `Alias`.
    Path(ArenaPath),
    /// `[T; N]`; `N` is an expression in the same arena.
    Array(TypeId, ExprId),
    /// `()`
    Unit,
    /// `!` (parsed so that it can be reported as unsupported).
    Never,
    /// Could not be parsed; an error was reported.
    Error,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IntSuffix {
    I32,
    I64,
    U64,
    Usize,
    /// Any other Rust integer suffix (`u8`, `i128`, …): parsed to report `unsupported`.
    Other(Symbol),
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntLit {
    /// `None` when the literal does not fit in 128 bits (always out of range).
    pub value: Option<LitValue>,
    pub suffix: Option<IntSuffix>,
    /// Written in hex (`0x…`); hex literals are never reinterpreted as negative.
    pub hex: bool,
}

/// An integer literal as its expression holds it (read with [`Arena::int_lit`]): a value
/// of up to 64 bits inline (nearly every literal), a wider one in the item's
/// [`Arena::wide_ints`]. An expression of 32 bytes has room for 64 bits, not 128.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntLitRef {
    /// The value's low and high 32 bits (`Inline`), or its index in `wide_ints` (`Wide`).
    bits: [u32; 2],
    suffix: Option<IntSuffix>,
    hex: bool,
    form: IntForm,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum IntForm {
    Inline,
    Wide,
    /// Does not fit in 128 bits (`IntLit::value` is `None`).
    TooWide,
}

impl Arena {
    /// Keeps `lit` for an expression.
    pub fn alloc_int(&mut self, lit: IntLit) -> IntLitRef {
        let (bits, form) = match lit.value {
            Some(v) if v.get() <= u64::MAX as u128 => {
                let v = v.get() as u64;
                ([v as u32, (v >> 32) as u32], IntForm::Inline)
            }
            Some(v) => {
                self.wide_ints.push(v);
                ([self.wide_ints.len() as u32 - 1, 0], IntForm::Wide)
            }
            None => ([0, 0], IntForm::TooWide),
        };
        IntLitRef {
            bits,
            suffix: lit.suffix,
            hex: lit.hex,
            form,
        }
    }

    /// The literal `r` holds.
    pub fn int_lit(&self, r: IntLitRef) -> IntLit {
        let value = match r.form {
            IntForm::Inline => Some(LitValue(
                u128::from(r.bits[0]) | u128::from(r.bits[1]) << 32,
            )),
            // An index out of range (a tree not made by the parser) reads as too wide.
            IntForm::Wide => self.wide_ints.get(r.bits[0] as usize).copied(),
            IntForm::TooWide => None,
        };
        IntLit {
            value,
            suffix: r.suffix,
            hex: r.hex,
        }
    }
}

/// The 128-bit value of an integer literal, aligned to 8 bytes rather than a `u128`'s 16,
/// so that it does not make every expression of the tree 16-byte aligned and padded.
/// Serialized, hashed and printed as the `u128` it holds.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(Rust, packed(8))]
pub struct LitValue(pub u128);

impl LitValue {
    #[inline]
    pub fn get(self) -> u128 {
        self.0
    }
}

impl std::fmt::Debug for LitValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&{ self.0 }, f)
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnOp {
    /// `-`
    Neg,
    /// `!`
    Not,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
}

impl BinOp {
    pub fn as_str(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Div => "/",
            BinOp::Rem => "%",
            BinOp::BitAnd => "&",
            BinOp::BitOr => "|",
            BinOp::BitXor => "^",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }

    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
        )
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// Without the leading `'`.
    pub name: Symbol,
    pub span: Span,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

// Expressions are the bulk of a parsed crate (about half of the pipeline's peak heap):
// a kind's payload stays within 20 bytes, larger ones go to side arrays of the arena.
const _: () = assert!(std::mem::size_of::<Expr>() == 32);

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Block {
    pub stmts: StmtList,
    /// The final expression without `;`, which gives the block its value.
    pub tail: Option<ExprId>,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct FieldInit {
    pub name: Ident,
    pub value: ExprId,
    /// `Point { x }`: `value` is a path expression `x` with the field's span.
    pub shorthand: bool,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum FmtPiece {
    /// Literal text, escapes (`\n`, `{{`, …) already decoded.
    Text(String),
    /// `{}`
    Hole,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Binding {
    pub mutable: bool,
    pub name: Ident,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ExprKind {
    /// Placeholder where the parser could not read an expression (an error was reported).
    Missing,
    Int(IntLitRef),
    Bool(bool),
    /// `()`
    Unit,
    Path(ArenaPath),
    /// `(e)`
    Paren(ExprId),
    Unary(UnOp, ExprId),
    Binary(BinOp, ExprId, ExprId),
    /// `place = value`
    Assign(ExprId, ExprId),
    /// `place op= value`
    AssignOp(BinOp, ExprId, ExprId),
    Cast(ExprId, TypeId),
    /// `callee(args)`; the callee is any expression syntactically, a path in Rill.
    Call(ExprId, ExprList),
    Field(ExprId, Ident),
    Index(ExprId, ExprId),
    StructLit(StructLitId),
    /// `[a, b, c]`
    Array(ExprList),
    /// `[value; count]`
    Repeat(ExprId, ExprId),
    Block(Block),
    If {
        cond: ExprId,
        then_branch: ExprId,
        else_branch: Option<ExprId>,
    },
    While {
        label: Option<Label>,
        cond: ExprId,
        body: ExprId,
    },
    Loop {
        label: Option<Label>,
        body: ExprId,
    },
    /// `for pattern in start..end` (or `..=`).
    For(ForId),
    Break {
        label: Option<Label>,
        value: Option<ExprId>,
    },
    Continue {
        label: Option<Label>,
    },
    Return(Option<ExprId>),
    /// `println!(format, args)`; the format string is already split into pieces.
    Println {
        pieces: PieceList,
        args: ExprList,
    },
}

/// `for pattern in start..end` (or `..=`); the pattern is `x`, `mut x` or `_`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ForLoop {
    pub label: Option<Label>,
    pub pattern: Pattern,
    pub start: ExprId,
    pub end: ExprId,
    pub inclusive: bool,
    pub body: ExprId,
}

/// `Path { field: value, … }`.
#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct StructLit {
    pub path: ArenaPath,
    pub fields: FieldList,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pattern {
    Binding(Binding),
    /// `_`
    Wild(Span),
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Stmt {
    pub kind: StmtKind,
    pub span: Span,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StmtKind {
    Let {
        pattern: Pattern,
        ty: Option<TypeId>,
        init: ExprId,
    },
    /// An expression statement; `semi` tells whether it ended with `;`. A block-like
    /// expression (`if`, `while`, `{}`, …) may stand without `;`.
    Expr { expr: ExprId, semi: bool },
    /// A lone `;`.
    Empty,
}

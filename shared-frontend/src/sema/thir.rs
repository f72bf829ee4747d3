//! The typed tree: one function body (or constant initializer) after type checking.
//!
//! Everything the later stages need is explicit here: every expression has its final
//! type (no inference variables), paths are resolved to locals or items, fields to
//! indices, loop labels to the loop they name, and coercions of `!` are visible. Lowering
//! and constant evaluation read this tree and never the syntax tree. Spans are relative to
//! the item.

use std::sync::Arc;

use crate::sema::def::DefId;
use crate::sema::ty::{IntTy, Ty};
use crate::span::Span;
use crate::syntax::ast::{BinOp, FmtPiece, UnOp};

#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct TExprId(pub u32);

#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct LocalId(pub u32);

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Local {
    pub name: crate::intern::Symbol,
    pub ty: Ty,
    pub mutable: bool,
    pub span: Span,
}

/// A type-checked body.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Thir {
    pub exprs: Vec<TExpr>,
    pub locals: Vec<Local>,
    /// The parameters, in order (empty for a constant).
    pub params: Vec<LocalId>,
    /// The root expression (the body block, or the const initializer).
    pub body: TExprId,
    /// The declared return type (or the const's type).
    pub ret: Ty,
}

impl std::ops::Index<TExprId> for Thir {
    type Output = TExpr;
    fn index(&self, id: TExprId) -> &TExpr {
        &self.exprs[id.0 as usize]
    }
}

impl std::ops::Index<LocalId> for Thir {
    type Output = Local;
    fn index(&self, id: LocalId) -> &Local {
        &self.locals[id.0 as usize]
    }
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct TExpr {
    pub kind: TExprKind,
    /// The final type. `Ty::Never` for diverging expressions that were not coerced.
    pub ty: Ty,
    pub span: Span,
}

/// Arithmetic, bitwise and comparison operators (`&&` and `||` are [`TExprKind::LogicalAnd`]
/// / [`TExprKind::LogicalOr`]). The operand type is the left operand's type; for shifts the
/// right operand may have any integer type.
#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TExprKind {
    /// Canonical bits of an integer of the expression's type (see `IntTy::normalize`).
    Int(u64),
    Bool(bool),
    Unit,
    Local(LocalId),
    /// The value of a `const` item.
    ConstRef(DefId),
    Unary(UnOp, TExprId),
    Binary(BinOp, TExprId, TExprId),
    LogicalAnd(TExprId, TExprId),
    LogicalOr(TExprId, TExprId),
    /// `place = value`; the place is a `Local`, `Field` or `Index` chain rooted at a local.
    Assign {
        place: TExprId,
        value: TExprId,
    },
    /// `place op= value` (op is arithmetic, bitwise or shift).
    AssignOp {
        op: BinOp,
        place: TExprId,
        value: TExprId,
    },
    /// Integer or bool source, integer target (the expression's type).
    Cast {
        source: TExprId,
        from: Ty,
        to: IntTy,
    },
    Call {
        callee: DefId,
        args: Vec<TExprId>,
    },
    /// Field by index in declaration order.
    Field {
        base: TExprId,
        index: u32,
    },
    Index {
        base: TExprId,
        index: TExprId,
    },
    /// Fields in the order written (that is the evaluation order), with their declaration
    /// index. Every field appears exactly once.
    StructLit {
        def: DefId,
        fields: Vec<(u32, TExprId)>,
    },
    Array(Vec<TExprId>),
    /// `[value; count]`: `value` is evaluated once, even when `count` is 0.
    Repeat {
        value: TExprId,
        count: u64,
    },
    Block {
        stmts: Vec<TStmt>,
        tail: Option<TExprId>,
    },
    If {
        cond: TExprId,
        then_branch: TExprId,
        else_branch: Option<TExprId>,
    },
    /// `loop`; its value is given by `break value`.
    Loop {
        body: TExprId,
    },
    While {
        cond: TExprId,
        body: TExprId,
    },
    /// `for binding in start..end` (or `..=`). Both ends are evaluated once, in order.
    For {
        binding: LocalId,
        start: TExprId,
        end: TExprId,
        inclusive: bool,
        body: TExprId,
    },
    /// `target` is the `Loop`/`While`/`For` expression being left.
    Break {
        target: TExprId,
        value: Option<TExprId>,
    },
    Continue {
        target: TExprId,
    },
    Return(Option<TExprId>),
    /// `println!`: `args[i]` fills the i-th hole; each argument is an integer or bool.
    Println {
        pieces: Arc<[FmtPiece]>,
        args: Vec<TExprId>,
    },
    /// An expression of type `!` used where another type is expected.
    NeverToAny(TExprId),
    /// Stands for an expression that had an error; never reaches lowering, since a body
    /// with errors is not lowered.
    Error,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub enum TStmt {
    /// `let` with a binding (`None` for `let _ = init;`, which still evaluates `init`).
    Let {
        local: Option<LocalId>,
        init: TExprId,
    },
    Expr(TExprId),
}

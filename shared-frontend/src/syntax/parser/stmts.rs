//! Blocks and statements: `let`, expression statements (with Rust's rule that a
//! block-like expression ends a statement), empty statements, and the tail expression.

use super::exprs::Restrictions;
use super::{same_kind, Parser};
use crate::diag::Diagnostic;
use crate::span::Span;
use crate::syntax::ast::{Binding, Block, ExprId, ExprKind, Pattern, Stmt, StmtId, StmtKind};
use crate::syntax::lexer::{DocStyle, Keyword as Kw, TokenKind as T};

/// Where the parser resynchronizes after a broken statement: a `;` (consumed), the `}`
/// ending the block, or a token that starts a statement or an item.
pub(super) const STMT_RECOVERY: &[T] = &[
    T::Semi,
    T::Keyword(Kw::Let),
    T::Keyword(Kw::Fn),
    T::Keyword(Kw::Struct),
    T::Keyword(Kw::Mod),
    T::Keyword(Kw::Use),
    T::Keyword(Kw::Pub),
];

impl<'a> Parser<'a> {
    /// At `{`: a block expression.
    pub(super) fn parse_block_expr(&mut self) -> ExprId {
        self.parse_block_expr_with(false)
    }

    /// At `{`: a block expression. `inner_docs_ok` for the blocks where rustc accepts
    /// inner doc comments at the start (function and loop bodies, block statements).
    pub(super) fn parse_block_expr_with(&mut self, inner_docs_ok: bool) -> ExprId {
        let lo = self.lo();
        self.bump_over(); // `{`
        self.skip_block_inner_attrs(inner_docs_ok);
        let block = self.parse_block_body(lo);
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::Block(block), span)
    }

    /// Inner doc comments and inner attributes at the start of a block.
    fn skip_block_inner_attrs(&mut self, inner_docs_ok: bool) {
        loop {
            let t = self.tok();
            if t.kind.doc_style() == Some(DocStyle::Inner) {
                if !inner_docs_ok {
                    self.report(Diagnostic::error(
                        "an inner attribute is not permitted in this context",
                        Span::new(t.lo, t.hi),
                    ));
                }
                self.bump();
            } else if same_kind(t.kind, T::Pound)
                && self.nth_is(1, T::Bang)
                && self.nth_is(2, T::OpenBracket)
            {
                self.bump();
                self.bump();
                self.skip_token_tree();
                self.unsupported("inner attributes", t.lo, self.prev_hi());
            } else {
                return;
            }
        }
    }

    /// Statements up to and including the `}`.
    fn parse_block_body(&mut self, open: u32) -> Block {
        let mark = self.scratch_stmts.len();
        let mut tail = None;
        loop {
            let start = self.pos;
            let doc = self.skip_doc_comments(false);
            match self.peek() {
                T::CloseBrace => {
                    if let Some(lo) = doc {
                        self.dangling_doc_comment(lo, self.prev_hi());
                    }
                    self.bump_over();
                    break;
                }
                T::Eof => {
                    self.unclosed_delimiter_error(open);
                    break;
                }
                _ => {}
            }
            let lo = doc.unwrap_or_else(|| self.lo());
            match self.parse_stmt(lo) {
                StmtOrTail::Stmt(Some(s)) => self.scratch_stmts.push(s),
                StmtOrTail::Stmt(None) => {}
                StmtOrTail::Tail(e) => {
                    tail = Some(e);
                    // Only `}` can follow a tail; `parse_stmt` made sure.
                }
            }
            if self.pos == start {
                let msg = format!("expected statement, found {}", self.found());
                self.error_here(msg);
                self.bump();
            }
            if tail.is_some() {
                if !self.eat(T::CloseBrace) {
                    self.unclosed_delimiter_error(open);
                }
                break;
            }
        }
        let stmts = self.arena.alloc_stmt_list(&self.scratch_stmts[mark..]);
        self.scratch_stmts.truncate(mark);
        Block { stmts, tail }
    }

    /// A missing `;`. When the next token starts a new line, rustc reports "expected `;`"
    /// just after the previous token and goes on as if it were there (returns `true`);
    /// otherwise it reports `same_line_msg` at the current token (the caller recovers).
    fn missing_semi_error(&mut self, same_line_msg: String) -> bool {
        if self.newline_before_current() && !self.at(T::Eof) {
            let msg = format!("expected `;`, found {}", self.found());
            let at = self.prev_hi();
            self.error_at(
                Diagnostic::error(msg, Span::new(at, at)).with_label_message("expected `;`"),
            );
            true
        } else {
            self.error_here(same_line_msg);
            false
        }
    }

    fn alloc_stmt(&mut self, kind: StmtKind, lo: u32) -> StmtId {
        let span = self.rel_from(lo);
        self.arena.alloc_stmt(Stmt { kind, span })
    }

    fn parse_stmt(&mut self, lo: u32) -> StmtOrTail {
        match self.peek() {
            T::Semi => {
                self.bump_over();
                return StmtOrTail::Stmt(Some(self.alloc_stmt(StmtKind::Empty, lo)));
            }
            T::Keyword(Kw::Let) => return StmtOrTail::Stmt(Some(self.parse_let(lo))),
            _ => {}
        }
        if self.at_item_start() {
            self.parse_item_in_body();
            return StmtOrTail::Stmt(None);
        }
        let expr = self.parse_expr_with(Restrictions {
            no_struct: false,
            stmt: true,
        });
        if self.eat(T::Semi) {
            return StmtOrTail::Stmt(Some(
                self.alloc_stmt(StmtKind::Expr { expr, semi: true }, lo),
            ));
        }
        if self.at(T::CloseBrace) {
            return StmtOrTail::Tail(expr);
        }
        if !self.is_block_like(expr) {
            let msg = format!("expected `;`, found {}", self.found());
            if !self.missing_semi_error(msg) {
                self.skip_balanced_until(STMT_RECOVERY);
                self.eat(T::Semi);
            }
        }
        StmtOrTail::Stmt(Some(
            self.alloc_stmt(StmtKind::Expr { expr, semi: false }, lo),
        ))
    }

    /// Whether an item starts here (inside a function body, where items are reported).
    fn at_item_start(&self) -> bool {
        match self.peek() {
            T::Keyword(
                Kw::Fn
                | Kw::Struct
                | Kw::Mod
                | Kw::Use
                | Kw::Pub
                | Kw::Impl
                | Kw::Trait
                | Kw::Enum
                | Kw::Static
                | Kw::Extern
                | Kw::Type,
            ) => true,
            T::Keyword(Kw::Const) => !self.nth_is(1, T::OpenBrace),
            T::Keyword(Kw::Unsafe | Kw::Async) => !matches!(
                self.nth(1),
                T::OpenBrace | T::Keyword(Kw::Move) | T::Or | T::OrOr
            ),
            // `#[attr] stmt` is an expression statement: `parse_primary` reports the
            // attributes.
            T::Pound => self.attrs_then_item(),
            _ => false,
        }
    }

    /// An item inside a function body: parsed (for recovery), reported, dropped.
    fn parse_item_in_body(&mut self) {
        let lo = self.lo();
        if !self.enter() {
            self.skip_item_rest();
            return;
        }
        self.body_item_depth += 1;
        let item = self.parse_item();
        self.body_item_depth -= 1;
        self.leave();
        // Items nested in a reported item are not reported again.
        if item.is_some() && self.body_item_depth == 0 {
            self.unsupported("items inside function bodies", lo, self.prev_hi());
        }
    }

    /// At `#`: whether the attributes are followed by an item.
    fn attrs_then_item(&self) -> bool {
        let mut i = 0;
        let mut depth = 0usize;
        loop {
            match self.nth(i) {
                T::Eof => return false,
                T::OpenBracket | T::OpenParen | T::OpenBrace => depth += 1,
                T::CloseBracket | T::CloseParen | T::CloseBrace => depth = depth.saturating_sub(1),
                T::Pound | T::Bang => {}
                k if depth == 0 => {
                    return matches!(
                        k,
                        T::Keyword(
                            Kw::Fn
                                | Kw::Struct
                                | Kw::Mod
                                | Kw::Use
                                | Kw::Pub
                                | Kw::Impl
                                | Kw::Trait
                                | Kw::Enum
                                | Kw::Static
                                | Kw::Extern
                                | Kw::Type
                                | Kw::Const
                        )
                    )
                }
                _ => {}
            }
            i += 1;
            if i > 10_000 {
                return false;
            }
        }
    }

    fn parse_let(&mut self, lo: u32) -> StmtId {
        self.bump(); // `let`
        let pattern = self.parse_let_pattern();
        let ty = if self.eat(T::Colon) {
            Some(self.parse_type())
        } else {
            None
        };
        let init = if self.eat(T::Eq) {
            self.parse_expr()
        } else {
            let t = self.tok();
            if same_kind(t.kind, T::Semi) {
                self.unsupported("`let` without an initializer", lo, t.hi);
            } else {
                let msg = format!(
                    "expected one of `:`, `;`, `=`, or `|`, found {}",
                    self.found()
                );
                self.error_here(msg);
            }
            self.missing_expr_here()
        };
        if self.at_kw(Kw::Else) {
            let else_lo = self.lo();
            self.bump();
            if self.at(T::OpenBrace) {
                self.parse_block_expr();
            }
            self.unsupported("`let`-`else`", else_lo, self.prev_hi());
        }
        if !self.eat(T::Semi) {
            let msg = format!(
                "expected one of `.`, `;`, `?`, `else`, or an operator, found {}",
                self.found()
            );
            if !self.missing_semi_error(msg) {
                self.skip_balanced_until(STMT_RECOVERY);
                self.eat(T::Semi);
            }
        }
        let kind = StmtKind::Let { pattern, ty, init };
        self.alloc_stmt(kind, lo)
    }

    /// `x`, `mut x`, `_`; other patterns are reported (and read as `_`).
    fn parse_let_pattern(&mut self) -> Pattern {
        let t = self.tok();
        match (t.kind, self.nth(1)) {
            (T::Underscore, T::Colon | T::Eq | T::Semi) => {
                self.bump();
                Pattern::Wild(self.rel(t.lo, t.hi))
            }
            (T::Ident, T::Colon | T::Eq | T::Semi) => {
                let name = self.bump_ident();
                Pattern::Binding(Binding {
                    mutable: false,
                    name,
                })
            }
            (T::Keyword(Kw::Mut), T::Underscore)
                if matches!(self.nth(2), T::Colon | T::Eq | T::Semi) =>
            {
                self.bump();
                self.mut_wild_error(t.lo);
                let wild = self.tok();
                self.bump();
                Pattern::Wild(self.rel(wild.lo, wild.hi))
            }
            (T::Keyword(Kw::Mut), T::Ident)
                if matches!(self.nth(2), T::Colon | T::Eq | T::Semi) =>
            {
                self.bump();
                let name = self.bump_ident();
                Pattern::Binding(Binding {
                    mutable: true,
                    name,
                })
            }
            (T::Keyword(Kw::Mut), T::Keyword(_)) => {
                self.bump();
                let name = self.expect_name();
                Pattern::Binding(Binding {
                    mutable: true,
                    name,
                })
            }
            (T::Keyword(k), T::Colon | T::Eq | T::Semi) if k != Kw::True && k != Kw::False => {
                let name = self.expect_name();
                Pattern::Binding(Binding {
                    mutable: false,
                    name,
                })
            }
            _ => {
                self.skip_balanced_until(&[T::Colon, T::Eq, T::Semi]);
                let hi = self.prev_hi().max(t.lo);
                if hi > t.lo {
                    self.report(Diagnostic::unsupported(
                        "patterns other than `x`, `mut x` and `_` in `let`",
                        Span::new(t.lo, hi),
                    ));
                } else {
                    let msg = format!("expected pattern, found {}", self.found());
                    self.error_here(msg);
                }
                Pattern::Wild(self.rel(t.lo, hi))
            }
        }
    }
}

enum StmtOrTail {
    Stmt(Option<StmtId>),
    Tail(ExprId),
}

//! Expressions: precedence climbing over Rust's binary operators, unary and postfix
//! operators, and the primary expressions (literals, paths, struct literals, blocks,
//! `if`, loops, jumps, `println!`).
//!
//! Precedence, tightest first (LANGUAGE.md "Operators"): unary `-` `!`; `as`; `* / %`;
//! `+ -`; `<< >>`; `&`; `^`; `|`; comparisons (non-associative); `&&`; `||`; ranges (only
//! in `for` heads); assignment and compound assignment (right-associative).

use super::{same_kind, Parser};
use crate::diag::Diagnostic;
use crate::limits::MAX_NESTING;
use crate::span::Span;
use crate::syntax::ast::{
    ArenaPath, BinOp, Binding, ExprId, ExprKind, ExprList, FieldInit, ForLoop, Label, Pattern,
    StructLit, TypeKind, UnOp,
};
use crate::syntax::lexer::{Keyword as Kw, LiteralKind, TokenKind as T};

/// Context restrictions, as in rustc.
#[derive(Clone, Copy, Default)]
pub(super) struct Restrictions {
    /// In the head of `if`, `while`, `for`, `match`: `Name {` is not a struct literal.
    pub no_struct: bool,
    /// At the start of an expression statement: a block-like expression ends the
    /// statement (only `.field` continues it).
    pub stmt: bool,
}

impl Restrictions {
    /// For operands: the statement rule applies only to the leftmost expression.
    fn operand(self) -> Restrictions {
        Restrictions {
            no_struct: self.no_struct,
            stmt: false,
        }
    }
}

const PREC_OR: u8 = 3;
const PREC_AND: u8 = 4;
const PREC_CMP: u8 = 5;
const PREC_BIT_OR: u8 = 6;
const PREC_BIT_XOR: u8 = 7;
const PREC_BIT_AND: u8 = 8;
const PREC_SHIFT: u8 = 9;
const PREC_ADD: u8 = 10;
const PREC_MUL: u8 = 11;
const PREC_AS: u8 = 12;

fn binop(kind: T) -> Option<(BinOp, u8)> {
    Some(match kind {
        T::OrOr => (BinOp::Or, PREC_OR),
        T::AndAnd => (BinOp::And, PREC_AND),
        T::EqEq => (BinOp::Eq, PREC_CMP),
        T::Ne => (BinOp::Ne, PREC_CMP),
        T::Lt => (BinOp::Lt, PREC_CMP),
        T::Le => (BinOp::Le, PREC_CMP),
        T::Gt => (BinOp::Gt, PREC_CMP),
        T::Ge => (BinOp::Ge, PREC_CMP),
        T::Or => (BinOp::BitOr, PREC_BIT_OR),
        T::Caret => (BinOp::BitXor, PREC_BIT_XOR),
        T::And => (BinOp::BitAnd, PREC_BIT_AND),
        T::Shl => (BinOp::Shl, PREC_SHIFT),
        T::Shr => (BinOp::Shr, PREC_SHIFT),
        T::Plus => (BinOp::Add, PREC_ADD),
        T::Minus => (BinOp::Sub, PREC_ADD),
        T::Star => (BinOp::Mul, PREC_MUL),
        T::Slash => (BinOp::Div, PREC_MUL),
        T::Percent => (BinOp::Rem, PREC_MUL),
        _ => return None,
    })
}

fn assign_op(kind: T) -> Option<BinOp> {
    Some(match kind {
        T::PlusEq => BinOp::Add,
        T::MinusEq => BinOp::Sub,
        T::StarEq => BinOp::Mul,
        T::SlashEq => BinOp::Div,
        T::PercentEq => BinOp::Rem,
        T::AndEq => BinOp::BitAnd,
        T::OrEq => BinOp::BitOr,
        T::CaretEq => BinOp::BitXor,
        T::ShlEq => BinOp::Shl,
        T::ShrEq => BinOp::Shr,
        _ => return None,
    })
}

/// Whether `kind` can start an expression (used after `break` and `return`).
pub(super) fn can_begin_expr(kind: T) -> bool {
    match kind {
        T::Literal { .. }
        | T::Ident
        | T::Underscore
        | T::Lifetime { .. }
        | T::OpenParen
        | T::OpenBracket
        | T::OpenBrace
        | T::Minus
        | T::Bang
        | T::Star
        | T::And
        | T::AndAnd
        | T::Or
        | T::OrOr
        | T::DotDot
        | T::DotDotEq
        | T::Lt
        | T::Shl
        | T::PathSep
        | T::Pound => true,
        T::Keyword(k) => matches!(
            k,
            Kw::True
                | Kw::False
                | Kw::If
                | Kw::Loop
                | Kw::While
                | Kw::For
                | Kw::Match
                | Kw::Unsafe
                | Kw::Break
                | Kw::Continue
                | Kw::Return
                | Kw::Crate
                | Kw::SelfValue
                | Kw::SelfType
                | Kw::Super
                | Kw::Move
                | Kw::Async
                | Kw::Const
                | Kw::Let
                | Kw::Box
                | Kw::Yield
                | Kw::Become
                | Kw::Do
                | Kw::Try
        ),
        _ => false,
    }
}

impl<'a> Parser<'a> {
    pub(super) fn parse_expr(&mut self) -> ExprId {
        self.parse_expr_with(Restrictions::default())
    }

    pub(super) fn parse_expr_no_struct(&mut self) -> ExprId {
        self.parse_expr_with(Restrictions {
            no_struct: true,
            stmt: false,
        })
    }

    /// Any expression, one level deeper.
    pub(super) fn parse_expr_with(&mut self, r: Restrictions) -> ExprId {
        if !self.enter() {
            return self.skip_nested_expr();
        }
        // A lone name or literal before `,` `;` `)` `]` `}` (call arguments, field
        // values, array elements): no operator, postfix or assignment can follow.
        let e = if matches!(self.peek(), T::Ident | T::Literal { .. })
            && matches!(
                self.nth(1),
                T::Comma | T::Semi | T::CloseParen | T::CloseBracket | T::CloseBrace
            ) {
            self.parse_leaf()
        } else {
            self.parse_assign(r)
        };
        self.leave();
        e
    }

    /// At an `Ident` or a literal that nothing continues (no `::`, `!`, `{`, `.`, `(`,
    /// `[`, `?` after it): the path or literal expression, as `parse_primary` would read
    /// it, without the layers of operator, postfix and primary parsing.
    #[inline]
    fn parse_leaf(&mut self) -> ExprId {
        if !matches!(self.peek(), T::Ident) {
            return self.parse_literal_expr();
        }
        self.parse_name_leaf()
    }

    /// `parse_leaf` at an `Ident`.
    fn parse_name_leaf(&mut self) -> ExprId {
        let name = self.bump_ident();
        let path = self.name_path(name);
        self.alloc_expr(ExprKind::Path(path), name.span)
    }

    /// Whether `e` is block-like: it ends an expression statement.
    pub(super) fn is_block_like(&self, e: ExprId) -> bool {
        matches!(
            self.arena[e].kind,
            ExprKind::Block(_)
                | ExprKind::If { .. }
                | ExprKind::While { .. }
                | ExprKind::Loop { .. }
                | ExprKind::For(_)
        ) || self.block_like_missing == Some(e)
    }

    fn expr_lo(&self, e: ExprId) -> u32 {
        self.arena[e].span.lo + self.base
    }

    /// Assignment (right-associative, lowest) and ranges (reported outside `for`).
    fn parse_assign(&mut self, r: Restrictions) -> ExprId {
        let lhs = self.parse_bin(r, PREC_OR);
        let kind = self.peek();
        // Most expressions end here: no assignment or range operator follows.
        if !matches!(kind, T::DotDot | T::DotDotEq | T::DotDotDot | T::Eq)
            && assign_op(kind).is_none()
        {
            return lhs;
        }
        if r.stmt && self.is_block_like(lhs) {
            return lhs;
        }
        let lo = self.expr_lo(lhs);
        if matches!(kind, T::DotDot | T::DotDotEq | T::DotDotDot) {
            return self.parse_range_rest(r, lo);
        }
        let op = if matches!(kind, T::Eq) {
            None
        } else if let Some(op) = assign_op(kind) {
            Some(op)
        } else {
            return lhs;
        };
        self.bump_over();
        let rhs = self.parse_expr_with(r.operand());
        let span = self.rel_from(lo);
        let kind = match op {
            None => ExprKind::Assign(lhs, rhs),
            Some(op) => ExprKind::AssignOp(op, lhs, rhs),
        };
        self.alloc_expr(kind, span)
    }

    /// At `..`, `..=` or `...` after an operand outside a `for` head: reported.
    fn parse_range_rest(&mut self, r: Restrictions, lo: u32) -> ExprId {
        let t = self.tok();
        self.bump();
        if same_kind(t.kind, T::DotDotDot) {
            self.report(Diagnostic::error(
                "unexpected token: `...`",
                Span::new(t.lo, t.hi),
            ));
        }
        if can_begin_expr(self.peek()) && !(r.no_struct && self.at(T::OpenBrace)) {
            if self.enter() {
                self.parse_bin(r.operand(), PREC_OR);
                self.leave();
            } else {
                self.skip_nested_expr();
            }
        }
        let hi = self.prev_hi();
        if !same_kind(t.kind, T::DotDotDot) {
            self.unsupported("range expressions outside `for` loops", lo, hi);
        }
        let span = self.rel(lo, hi);
        self.alloc_expr(ExprKind::Missing, span)
    }

    /// Binary operators of precedence `min_prec` and tighter.
    pub(super) fn parse_bin(&mut self, r: Restrictions, min_prec: u8) -> ExprId {
        let lhs = self.parse_unary(r);
        // Most operands are followed by no operator: `parse_bin_rest` would return `lhs`.
        let k = self.peek();
        if binop(k).is_none() && !matches!(k, T::Keyword(Kw::As) | T::LArrow) {
            return lhs;
        }
        let lo = self.expr_lo(lhs);
        self.parse_bin_rest(r, lo, lhs, min_prec)
    }

    fn parse_bin_rest(
        &mut self,
        r: Restrictions,
        lo: u32,
        mut lhs: ExprId,
        min_prec: u8,
    ) -> ExprId {
        // Left-nested chains deepen the tree without recursion: count them.
        let mut chain = 0u32;
        let mut last_was_cmp = false;
        loop {
            if r.stmt && self.is_block_like(lhs) {
                return lhs;
            }
            let t = self.tok();
            if matches!(t.kind, T::Keyword(Kw::As)) {
                if PREC_AS < min_prec {
                    return lhs;
                }
                self.bump_over();
                let ty = self.parse_cast_type();
                let span = self.rel_from(lo);
                lhs = self.alloc_expr(ExprKind::Cast(lhs, ty), span);
                self.check_generic_after_cast(ty);
                if !self.chain_step(&mut chain) {
                    return lhs;
                }
                continue;
            }
            let (op, prec) = match binop(t.kind) {
                Some(x) => x,
                None if matches!(t.kind, T::LArrow) && PREC_CMP >= min_prec => {
                    // rustc: `a<-1` is the token `<-`; it recovers as `a < -1`.
                    self.report(
                        Diagnostic::error("unexpected token: `<-`", Span::new(t.lo, t.hi))
                            .with_note(
                                "if you meant to write a comparison against a negative value, \
                                 add a space in between `<` and `-`",
                            ),
                    );
                    self.bump();
                    if last_was_cmp {
                        self.chained_comparison_error(t.lo, t.hi);
                    }
                    let rhs = if self.enter() {
                        let neg_lo = t.lo + 1;
                        let operand = self.parse_unary(r.operand());
                        let span = self.rel_from(neg_lo);
                        let neg = self.alloc_expr(ExprKind::Unary(UnOp::Neg, operand), span);
                        let e = self.parse_bin_rest(r.operand(), neg_lo, neg, PREC_CMP + 1);
                        self.leave();
                        e
                    } else {
                        self.skip_nested_expr()
                    };
                    let span = self.rel_from(lo);
                    lhs = self.alloc_expr(ExprKind::Binary(BinOp::Lt, lhs, rhs), span);
                    last_was_cmp = true;
                    if !self.chain_step(&mut chain) {
                        return lhs;
                    }
                    continue;
                }
                None => return lhs,
            };
            if prec < min_prec {
                return lhs;
            }
            self.bump_over();
            if op.is_comparison() && last_was_cmp {
                self.chained_comparison_error(t.lo, t.hi);
            }
            let rhs = if self.enter() {
                let e = self.parse_bin(r.operand(), prec + 1);
                self.leave();
                e
            } else {
                self.skip_nested_expr()
            };
            let span = self.rel_from(lo);
            lhs = self.alloc_expr(ExprKind::Binary(op, lhs, rhs), span);
            last_was_cmp = op.is_comparison();
            if !self.chain_step(&mut chain) {
                return lhs;
            }
        }
    }

    fn chained_comparison_error(&mut self, lo: u32, hi: u32) {
        self.report(
            Diagnostic::error("comparison operators cannot be chained", Span::new(lo, hi))
                .with_note("split the comparison into two: `a < b && b < c`"),
        );
    }

    /// One more left-nested node; `false` (after reporting and skipping the rest of the
    /// expression) when the tree would be deeper than the nesting limit.
    fn chain_step(&mut self, chain: &mut u32) -> bool {
        *chain += 1;
        if self.depth + *chain > MAX_NESTING {
            self.nesting_limit_error();
            self.skip_nested_expr();
            return false;
        }
        true
    }

    /// `x as T < y` and `x as T << y`: rustc reads `<` as the start of generic arguments.
    fn check_generic_after_cast(&mut self, ty: crate::syntax::ast::TypeId) {
        let t = self.tok();
        let what = match t.kind {
            T::Lt => "<` is interpreted as a start of generic arguments for `{}`, not a comparison",
            T::Shl => "<<` is interpreted as a start of generic arguments for `{}`, not a shift",
            _ => return,
        };
        if !matches!(self.arena[ty].kind, TypeKind::Path(_)) {
            return;
        }
        let span = self.arena[ty].span;
        let ty_text = &self.text[(span.lo + self.base) as usize..(span.hi + self.base) as usize];
        let msg = format!("`{}", what.replace("{}", ty_text));
        self.report(
            Diagnostic::error(msg, Span::new(t.lo, t.hi))
                .with_note("try comparing the cast value: `(x as T) < y`"),
        );
    }

    /// Prefix `-` and `!` (and reported `*`, `&`). A lone name or literal (the common
    /// operand) is parsed here without the call to the general case.
    #[inline]
    fn parse_unary(&mut self, r: Restrictions) -> ExprId {
        let leaf = match self.peek() {
            T::Ident => !matches!(
                self.nth(1),
                T::PathSep
                    | T::Bang
                    | T::OpenBrace
                    | T::Dot
                    | T::OpenParen
                    | T::OpenBracket
                    | T::Question
            ),
            T::Literal { .. } => !matches!(
                self.nth(1),
                T::Dot | T::OpenParen | T::OpenBracket | T::Question
            ),
            _ => false,
        };
        if leaf {
            return self.parse_leaf();
        }
        self.parse_unary_op(r)
    }

    /// `parse_unary` at anything but a lone name or literal.
    fn parse_unary_op(&mut self, r: Restrictions) -> ExprId {
        let t = self.tok();
        let op = match t.kind {
            T::Minus => Some(UnOp::Neg),
            T::Bang => Some(UnOp::Not),
            T::Star | T::And | T::AndAnd => None,
            _ => return self.parse_postfix(r),
        };
        self.bump_over();
        if op.is_none() {
            // A run of `&`, `&mut`, `*` is reported once; the tree keeps no nesting.
            while matches!(
                self.peek(),
                T::Star | T::And | T::AndAnd | T::Keyword(Kw::Mut)
            ) {
                self.bump();
            }
        }
        if !self.enter() {
            return self.skip_nested_expr();
        }
        let operand = self.parse_unary(r.operand());
        self.leave();
        let span = self.rel_from(t.lo);
        match op {
            Some(op) => self.alloc_expr(ExprKind::Unary(op, operand), span),
            None => {
                let what = if same_kind(t.kind, T::Star) {
                    "dereference `*`"
                } else {
                    "references"
                };
                self.unsupported(what, t.lo, self.prev_hi());
                self.alloc_expr(ExprKind::Missing, span)
            }
        }
    }

    /// Calls, field accesses and indexing after a primary expression.
    fn parse_postfix(&mut self, r: Restrictions) -> ExprId {
        let mut e = self.parse_primary(r);
        // Most primaries have no postfix operator.
        if !matches!(
            self.peek(),
            T::Dot | T::OpenParen | T::OpenBracket | T::Question
        ) {
            return e;
        }
        let lo = self.expr_lo(e);
        let mut chain = 0u32;
        loop {
            let t = self.tok();
            match t.kind {
                T::Dot => {
                    self.bump_over();
                    e = self.parse_dot_rest(e, lo);
                }
                T::OpenParen if !(r.stmt && self.is_block_like(e)) => {
                    let args = self.parse_call_args();
                    let span = self.rel_from(lo);
                    e = self.alloc_expr(ExprKind::Call(e, args), span);
                }
                T::OpenBracket if !(r.stmt && self.is_block_like(e)) => {
                    self.bump_over();
                    let index = self.parse_expr();
                    self.expect_closing(T::CloseBracket, t.lo);
                    let span = self.rel_from(lo);
                    e = self.alloc_expr(ExprKind::Index(e, index), span);
                }
                T::Question => {
                    self.bump();
                    self.unsupported("the `?` operator", t.lo, t.hi);
                    let span = self.rel_from(lo);
                    e = self.alloc_expr(ExprKind::Missing, span);
                }
                _ => return e,
            }
            if !self.chain_step(&mut chain) {
                return e;
            }
        }
    }

    /// After `e.`: a field, or a reported method call, tuple field or `.await`.
    fn parse_dot_rest(&mut self, e: ExprId, lo: u32) -> ExprId {
        let t = self.tok();
        match t.kind {
            T::Ident => {
                let name = self.bump_ident();
                if self.at(T::OpenParen) || self.at(T::PathSep) {
                    if self.eat(T::PathSep) && self.at(T::Lt) {
                        self.skip_angle_brackets();
                    }
                    if self.at(T::OpenParen) {
                        self.parse_call_args();
                    }
                    self.unsupported("method calls", t.lo, self.prev_hi());
                    let span = self.rel_from(lo);
                    return self.alloc_expr(ExprKind::Missing, span);
                }
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Field(e, name), span)
            }
            T::Literal {
                kind: LiteralKind::Int { .. } | LiteralKind::Float { .. },
                ..
            } => {
                self.bump();
                self.unsupported("tuple fields", t.lo, t.hi);
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Missing, span)
            }
            T::Keyword(Kw::Await) => {
                self.bump();
                self.unsupported("`.await`", t.lo, t.hi);
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Missing, span)
            }
            _ => {
                let msg = format!("unexpected token: {}", self.found());
                self.error_here(msg);
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Missing, span)
            }
        }
    }

    /// At `(`: comma-separated arguments up to and including the `)`.
    pub(super) fn parse_call_args(&mut self) -> ExprList {
        let open = self.lo();
        self.bump_over();
        let mark = self.scratch_exprs.len();
        self.parse_expr_list(T::CloseParen, open);
        self.take_scratch_exprs(mark)
    }

    /// The expressions pushed on the scratch stack since `mark`, as a list of the
    /// item's arena.
    pub(super) fn take_scratch_exprs(&mut self, mark: usize) -> ExprList {
        let list = self.arena.alloc_expr_list(&self.scratch_exprs[mark..]);
        self.scratch_exprs.truncate(mark);
        list
    }

    /// Comma-separated expressions up to and including `close` (a trailing comma
    /// allowed), pushed on the scratch stack.
    fn parse_expr_list(&mut self, close: T, open: u32) {
        loop {
            if self.eat(close) {
                return;
            }
            if self.at(T::Eof) {
                self.unclosed_delimiter_error(open);
                return;
            }
            let start = self.pos;
            let e = self.parse_expr();
            self.scratch_exprs.push(e);
            if self.eat(T::Comma) {
                continue;
            }
            if self.eat(close) {
                return;
            }
            let msg = format!(
                "expected one of `{}`, `,`, `.`, `?`, or an operator, found {}",
                close.punct_str().unwrap_or(")"),
                self.found()
            );
            self.error_here(msg);
            self.skip_balanced_until(&[T::Comma, T::Semi]);
            if self.eat(T::Comma) {
                if self.pos == start {
                    self.bump();
                }
                continue;
            }
            self.eat(close);
            return;
        }
    }

    /// Expects a closing delimiter; reports it missing otherwise.
    pub(super) fn expect_closing(&mut self, close: T, open: u32) {
        if self.eat(close) {
            return;
        }
        if self.at(T::Eof) {
            self.unclosed_delimiter_error(open);
            return;
        }
        let msg = format!(
            "expected `{}`, found {}",
            close.punct_str().unwrap_or("?"),
            self.found()
        );
        self.error_here(msg);
        // Skip to the delimiter if it is near, keeping balance.
        self.skip_balanced_until(&[T::Semi]);
        self.eat(close);
    }

    fn parse_primary(&mut self, r: Restrictions) -> ExprId {
        let t = self.tok();
        let lo = t.lo;
        match t.kind {
            T::Literal { .. } => self.parse_literal_expr(),
            T::Keyword(Kw::True) | T::Keyword(Kw::False) => {
                self.bump_over();
                let span = self.rel(t.lo, t.hi);
                self.alloc_expr(
                    ExprKind::Bool(same_kind(t.kind, T::Keyword(Kw::True))),
                    span,
                )
            }
            T::Ident
            | T::PathSep
            | T::Keyword(Kw::Crate | Kw::SelfValue | Kw::Super | Kw::SelfType) => {
                self.parse_path_start_expr(r)
            }
            T::OpenParen => self.parse_paren_expr(),
            T::OpenBracket => self.parse_array_expr(),
            T::OpenBrace => self.parse_block_expr_with(r.stmt),
            T::Keyword(Kw::If) => self.parse_if(),
            T::Keyword(Kw::While) => self.parse_while(None, lo),
            T::Keyword(Kw::Loop) => self.parse_loop(None, lo),
            T::Keyword(Kw::For) => self.parse_for(None, lo),
            T::Lifetime { .. } => self.parse_labeled(),
            T::Keyword(Kw::Break) => {
                self.bump_over();
                let label = self.parse_opt_label();
                let value = self.parse_opt_value(r);
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Break { label, value }, span)
            }
            T::Keyword(Kw::Continue) => {
                self.bump_over();
                let label = self.parse_opt_label();
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Continue { label }, span)
            }
            T::Keyword(Kw::Return) => {
                self.bump_over();
                let value = self.parse_opt_value(r);
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Return(value), span)
            }
            T::Keyword(Kw::Match) => {
                self.bump();
                self.parse_expr_no_struct();
                if self.at(T::OpenBrace) {
                    self.skip_token_tree();
                }
                self.unsupported_block_like("`match` expressions", lo)
            }
            T::Keyword(Kw::Unsafe | Kw::Async | Kw::Const) if self.nth_is(1, T::OpenBrace) => {
                self.bump();
                self.skip_token_tree();
                let what = match t.kind {
                    T::Keyword(Kw::Unsafe) => "`unsafe` blocks",
                    T::Keyword(Kw::Async) => "`async` blocks",
                    _ => "inline `const` blocks",
                };
                self.unsupported_block_like(what, lo)
            }
            T::Keyword(Kw::Move) | T::Or | T::OrOr => self.parse_closure(),
            T::Keyword(Kw::Async)
                if matches!(self.nth(1), T::Keyword(Kw::Move) | T::Or | T::OrOr) =>
            {
                self.bump();
                self.parse_closure()
            }
            T::Keyword(Kw::Let) => {
                let msg = "expected expression, found `let` statement";
                self.error_here(msg);
                self.bump();
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Missing, span)
            }
            T::Underscore => {
                self.bump();
                if self.at(T::Eq) {
                    self.unsupported("assignment to `_`", t.lo, self.tok().hi);
                } else {
                    self.report(Diagnostic::error(
                        "in expressions, `_` can only be used on the left-hand side of an \
                         assignment",
                        Span::new(t.lo, t.hi),
                    ));
                }
                let span = self.rel(t.lo, t.hi);
                self.alloc_expr(ExprKind::Missing, span)
            }
            T::DotDot | T::DotDotEq => {
                self.bump();
                if can_begin_expr(self.peek()) && !(r.no_struct && self.at(T::OpenBrace)) {
                    if self.enter() {
                        self.parse_bin(r.operand(), PREC_OR);
                        self.leave();
                    } else {
                        self.skip_nested_expr();
                    }
                }
                self.unsupported("range expressions outside `for` loops", lo, self.prev_hi());
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Missing, span)
            }
            T::Plus => {
                self.report(
                    Diagnostic::error("leading `+` is not supported", Span::new(t.lo, t.hi))
                        .with_label_message("unexpected `+`"),
                );
                self.bump();
                if !self.enter() {
                    return self.skip_nested_expr();
                }
                let e = self.parse_unary(r.operand());
                self.leave();
                e
            }
            T::Lt | T::Shl => {
                // `<T>::item`, `<T as Trait>::item`.
                self.skip_angle_brackets();
                if self.eat(T::PathSep) && matches!(self.peek(), T::Ident | T::Keyword(_)) {
                    self.parse_path();
                }
                self.unsupported("qualified paths `<T>::…`", lo, self.prev_hi());
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Missing, span)
            }
            T::Pound => {
                // Attributes on expressions: skip them, report, parse what follows.
                while self.at(T::Pound) {
                    self.bump();
                    self.eat(T::Bang);
                    if self.at(T::OpenBracket) {
                        self.skip_token_tree();
                    }
                }
                self.unsupported("attributes on expressions", lo, self.prev_hi());
                if !self.enter() {
                    return self.skip_nested_expr();
                }
                let e = self.parse_unary(r);
                self.leave();
                e
            }
            _ => {
                let msg = format!("expected expression, found {}", self.found());
                self.error_here(msg);
                self.missing_expr_here()
            }
        }
    }

    /// A `Missing` expression for a reported block-like construct (`match`, …).
    fn unsupported_block_like(&mut self, what: &str, lo: u32) -> ExprId {
        self.unsupported(what, lo, self.prev_hi());
        let span = self.rel_from(lo);
        let e = self.alloc_expr(ExprKind::Missing, span);
        self.block_like_missing = Some(e);
        e
    }

    /// A closure: reported; its parameters are skipped and its body parsed.
    fn parse_closure(&mut self) -> ExprId {
        let lo = self.lo();
        self.eat_kw(Kw::Move);
        if self.eat(T::Or) {
            self.skip_balanced_until(&[T::Or]);
            self.eat(T::Or);
        } else {
            self.eat(T::OrOr);
        }
        if self.eat(T::RArrow) {
            self.parse_type();
        }
        if can_begin_expr(self.peek()) {
            self.parse_expr();
        }
        self.unsupported("closures", lo, self.prev_hi());
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::Missing, span)
    }

    /// The optional value of `break` / `return`.
    fn parse_opt_value(&mut self, r: Restrictions) -> Option<ExprId> {
        let k = self.peek();
        if !can_begin_expr(k) || (r.no_struct && same_kind(k, T::OpenBrace)) {
            return None;
        }
        Some(self.parse_expr_with(r.operand()))
    }

    /// An optional label after `break` / `continue`.
    fn parse_opt_label(&mut self) -> Option<Label> {
        if let T::Lifetime { .. } = self.peek() {
            let t = self.tok();
            self.bump();
            return Some(self.label_of(t));
        }
        None
    }

    fn label_of(&mut self, t: super::Tok) -> Label {
        let text = self.tok_text(t);
        let name = text.strip_prefix('\'').unwrap_or(text);
        let name = name.strip_prefix("r#").unwrap_or(name);
        Label {
            name: self.intern(name),
            span: self.rel(t.lo, t.hi),
        }
    }

    /// `'l: loop`, `'l: while`, `'l: for`; a labeled block is reported.
    fn parse_labeled(&mut self) -> ExprId {
        let t = self.tok();
        let lo = t.lo;
        self.bump();
        let label = self.label_of(t);
        if !self.eat(T::Colon) {
            let msg = "expected `while`, `for`, `loop` or `{` after a label";
            self.report(Diagnostic::error(msg, Span::new(t.lo, t.hi)));
            let span = self.rel(t.lo, t.hi);
            return self.alloc_expr(ExprKind::Missing, span);
        }
        match self.peek() {
            T::Keyword(Kw::While) => self.parse_while(Some(label), lo),
            T::Keyword(Kw::Loop) => self.parse_loop(Some(label), lo),
            T::Keyword(Kw::For) => self.parse_for(Some(label), lo),
            T::OpenBrace => {
                self.parse_block_expr();
                self.unsupported_block_like("labeled blocks", lo)
            }
            _ => {
                let msg = "expected `while`, `for`, `loop` or `{` after a label";
                self.error_here(msg);
                let span = self.rel_from(lo);
                self.alloc_expr(ExprKind::Missing, span)
            }
        }
    }

    fn parse_if(&mut self) -> ExprId {
        let lo = self.lo();
        self.bump_over(); // `if`
        let cond = self.parse_cond("`if let`");
        let then_branch = self.parse_block_or_missing();
        let else_branch = if self.eat_kw(Kw::Else) {
            if self.at_kw(Kw::If) {
                if self.enter() {
                    let e = self.parse_if();
                    self.leave();
                    Some(e)
                } else {
                    Some(self.skip_nested_expr())
                }
            } else {
                Some(self.parse_block_or_missing())
            }
        } else {
            None
        };
        let span = self.rel_from(lo);
        self.alloc_expr(
            ExprKind::If {
                cond,
                then_branch,
                else_branch,
            },
            span,
        )
    }

    /// The condition of `if` / `while`; `let` conditions are reported.
    fn parse_cond(&mut self, let_what: &str) -> ExprId {
        if self.at_kw(Kw::Let) {
            let lo = self.lo();
            self.bump();
            self.skip_balanced_until(&[T::Eq, T::OpenBrace]);
            if self.eat(T::Eq) {
                self.parse_expr_no_struct();
            }
            self.unsupported(let_what, lo, self.prev_hi());
            let span = self.rel_from(lo);
            return self.alloc_expr(ExprKind::Missing, span);
        }
        self.parse_expr_no_struct()
    }

    /// A block where one is required (`if`, loops).
    fn parse_block_or_missing(&mut self) -> ExprId {
        self.parse_block_or_missing_with(false)
    }

    /// A loop body (where rustc accepts inner doc comments) or an `if` branch.
    fn parse_block_or_missing_with(&mut self, inner_docs_ok: bool) -> ExprId {
        if self.at(T::OpenBrace) {
            return self.parse_block_expr_with(inner_docs_ok);
        }
        let msg = format!("expected `{{`, found {}", self.found());
        self.error_here(msg);
        self.missing_expr_here()
    }

    fn parse_while(&mut self, label: Option<Label>, lo: u32) -> ExprId {
        self.bump_over(); // `while`
        let cond = self.parse_cond("`while let`");
        let body = self.parse_block_or_missing_with(true);
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::While { label, cond, body }, span)
    }

    fn parse_loop(&mut self, label: Option<Label>, lo: u32) -> ExprId {
        self.bump_over(); // `loop`
        let body = self.parse_block_or_missing_with(true);
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::Loop { label, body }, span)
    }

    fn parse_for(&mut self, label: Option<Label>, lo: u32) -> ExprId {
        self.bump_over(); // `for`
        let pattern = self.parse_for_pattern();
        if !self.eat_kw(Kw::In) {
            let msg = format!("missing `in` in `for` loop, found {}", self.found());
            self.error_here(msg);
        }
        let r = Restrictions {
            no_struct: true,
            stmt: false,
        };
        let (start, end, inclusive) = if self.enter() {
            let start = self.parse_bin(r, PREC_OR);
            let result = match self.peek() {
                T::DotDot | T::DotDotEq => {
                    let inclusive = self.at(T::DotDotEq);
                    let dots = self.tok();
                    self.bump();
                    let end = if can_begin_expr(self.peek()) && !self.at(T::OpenBrace) {
                        self.parse_bin(r, PREC_OR)
                    } else {
                        self.unsupported("ranges without an end", dots.lo, dots.hi);
                        self.missing_expr_here()
                    };
                    (start, end, inclusive)
                }
                _ => {
                    let s = self.arena[start].span;
                    self.report(Diagnostic::unsupported(
                        "`for` loops over anything but a range `a..b` or `a..=b`",
                        s.shift(self.base),
                    ));
                    let end = self.missing_expr_here();
                    (start, end, false)
                }
            };
            self.leave();
            result
        } else {
            let e = self.skip_nested_expr();
            (e, e, false)
        };
        let body = self.parse_block_or_missing_with(true);
        let span = self.rel_from(lo);
        let id = self.arena.alloc_for(ForLoop {
            label,
            pattern,
            start,
            end,
            inclusive,
            body,
        });
        self.alloc_expr(ExprKind::For(id), span)
    }

    /// `x`, `mut x` or `_` in a `for` head, as in `let`; other patterns are reported (and
    /// read as `_`).
    fn parse_for_pattern(&mut self) -> Pattern {
        let lo = self.lo();
        if self.at(T::Underscore) && self.nth_is(1, T::Keyword(Kw::In)) {
            self.bump();
            return Pattern::Wild(self.rel_from(lo));
        }
        let mutable = self.eat_kw(Kw::Mut);
        if mutable && self.at(T::Underscore) && self.nth_is(1, T::Keyword(Kw::In)) {
            self.mut_wild_error(lo);
            self.bump();
            return Pattern::Wild(self.rel_from(lo));
        }
        if self.at(T::Ident) {
            let name = self.bump_ident();
            if !self.at(T::Keyword(Kw::In)) && !matches!(self.peek(), T::Eof) {
                // `x @ pat`, `x: T` …
                let lo = self.lo();
                self.skip_balanced_until(&[T::Keyword(Kw::In), T::OpenBrace]);
                if self.prev_hi() > lo {
                    self.unsupported(
                        "patterns other than identifiers in `for`",
                        lo,
                        self.prev_hi(),
                    );
                }
            }
            return Pattern::Binding(Binding { mutable, name });
        }
        let lo = self.lo();
        if let T::Keyword(_) = self.peek() {
            let name = if self.at_kw(Kw::In) {
                self.expected_ident_error();
                self.missing_ident()
            } else {
                self.expect_name()
            };
            return Pattern::Binding(Binding { mutable, name });
        }
        self.skip_balanced_until(&[T::Keyword(Kw::In), T::OpenBrace]);
        self.unsupported(
            "patterns other than identifiers in `for`",
            lo,
            self.prev_hi().max(lo),
        );
        Pattern::Wild(self.rel_from(lo))
    }

    /// rustc's error for `mut _` (in `let` and `for`), on the `mut` that starts at `lo`.
    pub(super) fn mut_wild_error(&mut self, lo: u32) {
        self.error_at(Diagnostic::error(
            "`mut` must be followed by a named binding",
            Span::new(lo, self.prev_hi()),
        ));
    }

    /// `(e)`, `()`, or a reported tuple.
    fn parse_paren_expr(&mut self) -> ExprId {
        let lo = self.lo();
        self.bump_over();
        if self.eat(T::CloseParen) {
            let span = self.rel_from(lo);
            return self.alloc_expr(ExprKind::Unit, span);
        }
        let inner = self.parse_expr();
        if self.at(T::Comma) {
            self.bump();
            let mark = self.scratch_exprs.len();
            self.parse_expr_list(T::CloseParen, lo);
            self.scratch_exprs.truncate(mark);
            self.unsupported("tuples", lo, self.prev_hi());
            let span = self.rel_from(lo);
            return self.alloc_expr(ExprKind::Missing, span);
        }
        self.expect_closing(T::CloseParen, lo);
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::Paren(inner), span)
    }

    /// `[a, b, c]` or `[value; count]`.
    fn parse_array_expr(&mut self) -> ExprId {
        let lo = self.lo();
        self.bump_over();
        if self.eat(T::CloseBracket) {
            let span = self.rel_from(lo);
            return self.alloc_expr(ExprKind::Array(ExprList::default()), span);
        }
        let first = self.parse_expr();
        if self.eat(T::Semi) {
            let count = self.parse_expr();
            self.expect_closing(T::CloseBracket, lo);
            let span = self.rel_from(lo);
            return self.alloc_expr(ExprKind::Repeat(first, count), span);
        }
        let mark = self.scratch_exprs.len();
        self.scratch_exprs.push(first);
        if self.eat(T::Comma) {
            self.parse_expr_list(T::CloseBracket, lo);
        } else {
            self.expect_closing(T::CloseBracket, lo);
        }
        let elems = self.take_scratch_exprs(mark);
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::Array(elems), span)
    }

    /// A path, then a struct literal, a macro call, or just the path.
    fn parse_path_start_expr(&mut self, r: Restrictions) -> ExprId {
        let lo = self.lo();
        let path = self.parse_path();
        if self.at(T::Bang) && path.len() == 1 && self.is_macro_delim(self.nth(1)) {
            return self.parse_macro_call(lo, path);
        }
        if self.at(T::OpenBrace) {
            if !r.no_struct {
                return self.parse_struct_lit(lo, path);
            }
            // rustc spots an obvious struct literal in a condition and reports it.
            if self.nth_is(1, T::Ident) && matches!(self.nth(2), T::Colon | T::Comma) {
                let e = self.parse_struct_lit(lo, path);
                self.report(
                    Diagnostic::error(
                        "struct literals are not allowed here",
                        self.arena[e].span.shift(self.base),
                    )
                    .with_note("surround the struct literal with parentheses"),
                );
                return e;
            }
        }
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::Path(path), span)
    }

    fn is_macro_delim(&self, k: T) -> bool {
        matches!(k, T::OpenParen | T::OpenBracket | T::OpenBrace)
    }

    /// At the `!` of `name!(…)`.
    fn parse_macro_call(&mut self, lo: u32, path: ArenaPath) -> ExprId {
        let name = match self.arena.path(&path).segments[0].kind {
            crate::syntax::ast::PathSegmentKind::Name(n) => n,
            _ => self.intern("self"),
        };
        let braces = self.nth_is(1, T::OpenBrace);
        let e = if name.as_str() == "println" {
            self.parse_println(lo)
        } else {
            self.bump(); // `!`
            self.skip_token_tree();
            self.unsupported(format!("macro `{}!`", name.as_str()), lo, self.prev_hi());
            let span = self.rel_from(lo);
            self.alloc_expr(ExprKind::Missing, span)
        };
        if braces {
            self.block_like_missing = Some(e);
        }
        e
    }

    /// At `{` after a path: `Path { a: e, b }`.
    fn parse_struct_lit(&mut self, lo: u32, path: ArenaPath) -> ExprId {
        let open = self.lo();
        self.bump_over();
        let mark = self.scratch_fields.len();
        loop {
            if self.eat(T::CloseBrace) {
                break;
            }
            if self.at(T::Eof) {
                self.unclosed_delimiter_error(open);
                break;
            }
            let start = self.pos;
            let t = self.tok();
            match t.kind {
                T::Ident => {
                    let name = self.bump_ident();
                    if self.eat(T::Colon) {
                        let value = self.parse_expr();
                        self.scratch_fields.push(FieldInit {
                            name,
                            value,
                            shorthand: false,
                        });
                    } else {
                        let path = self.name_path(name);
                        let value = self.alloc_expr(ExprKind::Path(path), name.span);
                        self.scratch_fields.push(FieldInit {
                            name,
                            value,
                            shorthand: true,
                        });
                    }
                }
                T::DotDot => {
                    self.bump();
                    if !self.at(T::CloseBrace) {
                        self.parse_expr();
                    }
                    self.unsupported("struct update syntax `..`", t.lo, self.prev_hi());
                }
                T::Literal { .. } => {
                    self.bump();
                    self.eat(T::Colon);
                    self.parse_expr();
                    self.unsupported("tuple struct literals", t.lo, self.prev_hi());
                }
                _ => {
                    self.expected_ident_error();
                }
            }
            if self.eat(T::Comma) {
                continue;
            }
            if self.eat(T::CloseBrace) {
                break;
            }
            let msg = format!("expected one of `,` or `}}`, found {}", self.found());
            self.error_here(msg);
            self.skip_balanced_until(&[T::Comma, T::Semi]);
            if !self.eat(T::Comma) {
                self.eat(T::CloseBrace);
                break;
            }
            if self.pos == start {
                self.bump();
            }
        }
        let fields = self.arena.alloc_field_list(&self.scratch_fields[mark..]);
        self.scratch_fields.truncate(mark);
        let span = self.rel_from(lo);
        let id = self.arena.alloc_struct_lit(StructLit { path, fields });
        self.alloc_expr(ExprKind::StructLit(id), span)
    }
}

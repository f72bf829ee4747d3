//! Items: functions, constants, structs, type aliases, modules, `use`, and the
//! attributes and doc comments in front of them. Items outside the subset (`impl`,
//! `enum`, macros, …) are skipped with an `unsupported` diagnostic.

use std::sync::Arc;

use super::{same_kind, Parser};
use crate::diag::Diagnostic;
use crate::limits::MAX_MODULE_DEPTH;
use crate::span::Span;
use crate::syntax::ast::{
    ConstDef, ExprKind, FieldDef, FnDef, Ident, Item, ItemKind, ModDef, Param, Path, PathSegment,
    PathSegmentKind, StructDef, Type, TypeAliasDef, TypeKind, UseDef, UseTree, UseTreeKind,
    Visibility,
};
use crate::syntax::lexer::{DocStyle, Keyword as Kw, TokenKind as T};

/// Tokens that can start an item: where the parser resynchronizes after a broken item.
pub(super) const ITEM_RECOVERY: &[T] = &[
    T::Keyword(Kw::Fn),
    T::Keyword(Kw::Const),
    T::Keyword(Kw::Struct),
    T::Keyword(Kw::Type),
    T::Keyword(Kw::Mod),
    T::Keyword(Kw::Use),
    T::Keyword(Kw::Pub),
    T::Keyword(Kw::Impl),
    T::Keyword(Kw::Trait),
    T::Keyword(Kw::Enum),
    T::Keyword(Kw::Static),
    T::Keyword(Kw::Extern),
    T::Keyword(Kw::Unsafe),
    T::Keyword(Kw::Async),
    T::Pound,
];

/// What the attributes in front of an item said.
#[derive(Default)]
struct Attrs {
    /// Span of an accepted `#[derive(Clone, Copy)]`.
    derive: Option<Span>,
}

impl<'a> Parser<'a> {
    /// The items of the whole file.
    pub(super) fn parse_file_items(&mut self) -> Vec<Item> {
        self.skip_inner_attrs_and_docs();
        let mut items = Vec::new();
        self.parse_item_list(&mut items, false);
        items
    }

    /// Inner doc comments and inner attributes at the start of a file or module body.
    fn skip_inner_attrs_and_docs(&mut self) {
        loop {
            if self.peek().doc_style() == Some(DocStyle::Inner) {
                self.bump();
            } else if self.at(T::Pound) && self.nth_is(1, T::Bang) && self.nth_is(2, T::OpenBracket)
            {
                let lo = self.lo();
                self.bump();
                self.bump();
                self.skip_token_tree();
                let hi = self.prev_hi();
                self.unsupported("inner attributes", lo, hi);
            } else {
                return;
            }
        }
    }

    /// Items up to the end of the file, or up to (not including) the `}` closing a module
    /// body when `in_braces`.
    fn parse_item_list(&mut self, items: &mut Vec<Item>, in_braces: bool) {
        loop {
            let start = self.pos;
            match self.peek() {
                T::Eof => return,
                T::CloseBrace if in_braces => return,
                T::CloseBrace | T::CloseParen | T::CloseBracket => {
                    let msg = format!("unexpected closing delimiter: {}", self.found());
                    self.error_here(msg);
                    self.bump();
                    continue;
                }
                _ => {}
            }
            if let Some(item) = self.parse_item() {
                items.push(item);
            }
            if self.pos == start {
                // No progress: whatever is here starts no item.
                let msg = format!("expected item, found {}", self.found());
                self.error_here(msg);
                self.bump();
                self.skip_balanced_until(ITEM_RECOVERY);
            }
        }
    }

    /// One item (with its doc comments and attributes). `None` when nothing usable was
    /// parsed; an error was reported then, or the item was outside the subset.
    pub(super) fn parse_item(&mut self) -> Option<Item> {
        let doc_lo = self.skip_doc_comments(false);
        if doc_lo.is_some() && matches!(self.peek(), T::CloseBrace | T::Eof) {
            let t = self.tok();
            let lo = doc_lo.unwrap_or(t.lo);
            self.report(Diagnostic::error(
                "expected item after doc comment",
                Span::new(lo, self.prev_hi()),
            ));
            return None;
        }
        let lo = doc_lo.unwrap_or_else(|| self.lo());

        // Each item has its own arena and its own origin for spans.
        let saved_arena = self.begin_item_arena();
        let saved_base = self.base;
        let saved_reported = self.nesting_reported;
        let saved_block_like = self.block_like_missing.take();
        self.base = lo;
        if self.depth == 0 {
            self.nesting_reported = false;
        }
        let item = self.parse_item_after_docs(lo);
        self.end_item_arena(saved_arena);
        self.base = saved_base;
        self.nesting_reported = saved_reported;
        self.block_like_missing = saved_block_like;
        item
    }

    fn parse_item_after_docs(&mut self, lo: u32) -> Option<Item> {
        let attrs = self.parse_outer_attrs();
        let vis = self.parse_visibility();
        let kw_lo = self.lo();
        let kind = match self.peek() {
            T::Keyword(Kw::Fn) => Some(self.parse_fn()),
            T::Keyword(Kw::Const) => match self.nth(1) {
                T::Keyword(Kw::Fn | Kw::Unsafe | Kw::Async | Kw::Extern) => {
                    self.bump();
                    self.unsupported("`const fn`", kw_lo, self.prev_hi());
                    self.parse_fn_after_qualifiers()
                }
                T::OpenBrace => {
                    self.bump();
                    self.skip_token_tree();
                    self.unsupported("`const` blocks", kw_lo, self.prev_hi());
                    None
                }
                _ => Some(self.parse_const()),
            },
            T::Keyword(Kw::Struct) => Some(self.parse_struct(&attrs, lo)),
            T::Keyword(Kw::Type) => Some(self.parse_type_alias()),
            T::Keyword(Kw::Mod) => self.parse_mod(),
            T::Keyword(Kw::Use) => Some(self.parse_use()),
            T::Keyword(Kw::Unsafe | Kw::Async | Kw::Extern) if self.fn_follows_qualifiers() => {
                self.parse_fn_after_qualifiers()
            }
            T::Keyword(
                k @ (Kw::Impl
                | Kw::Trait
                | Kw::Enum
                | Kw::Static
                | Kw::Extern
                | Kw::Unsafe
                | Kw::Async
                | Kw::Macro),
            ) => {
                let what = match k {
                    Kw::Impl => "`impl` blocks",
                    Kw::Trait => "traits",
                    Kw::Enum => "enums",
                    Kw::Static => "statics",
                    Kw::Extern => "`extern` items",
                    Kw::Unsafe => "`unsafe` items",
                    Kw::Async => "`async` items",
                    _ => "macros",
                };
                self.skip_item_rest();
                self.unsupported(what, kw_lo, self.prev_hi());
                None
            }
            T::Ident if self.at_contextual_item_keyword() => {
                let text = self.tok_text(self.tok());
                let what = match text {
                    "union" => "unions".to_string(),
                    "auto" => "traits".to_string(),
                    _ => format!("macro `{text}!`"),
                };
                self.skip_item_rest();
                self.unsupported(what, kw_lo, self.prev_hi());
                None
            }
            _ => {
                if attrs.derive.is_some() || vis == Visibility::Pub || self.pos_moved_since(lo) {
                    let msg = format!("expected item, found {}", self.found());
                    self.error_here(msg);
                    self.skip_balanced_until(ITEM_RECOVERY);
                }
                return None;
            }
        };
        let kind = kind?;
        if let Some(d) = attrs.derive {
            if !matches!(kind, ItemKind::Struct(_)) {
                self.report(Diagnostic::unsupported(
                    "`#[derive]` on items other than structs",
                    d,
                ));
            }
        }
        let span = Span::new(0, self.prev_hi().saturating_sub(lo));
        Some(Item {
            offset: lo,
            span,
            vis,
            kind,
        })
    }

    /// Whether tokens were consumed since absolute offset `lo` (attributes, `pub`, docs).
    fn pos_moved_since(&self, lo: u32) -> bool {
        self.lo() > lo
    }

    /// `union U {`, `auto trait`, `macro_rules! m {`, `m! { … }` at item level.
    fn at_contextual_item_keyword(&self) -> bool {
        let text = self.tok_text(self.tok());
        match text {
            "union" => self.nth_is(1, T::Ident),
            "auto" => self.nth_is(1, T::Keyword(Kw::Trait)),
            _ => self.nth_is(1, T::Bang),
        }
    }

    /// `unsafe fn`, `async fn`, `extern "C" fn`, `unsafe extern fn` …
    fn fn_follows_qualifiers(&self) -> bool {
        let mut i = 0;
        loop {
            match self.nth(i) {
                T::Keyword(Kw::Unsafe | Kw::Async | Kw::Extern | Kw::Const) => i += 1,
                T::Literal { .. } if i > 0 && self.nth_is(i - 1, T::Keyword(Kw::Extern)) => i += 1,
                T::Keyword(Kw::Fn) => return i > 0,
                _ => return false,
            }
        }
    }

    /// Reports the qualifiers in front of `fn` as unsupported and parses the function.
    fn parse_fn_after_qualifiers(&mut self) -> Option<ItemKind> {
        while !self.at_kw(Kw::Fn) {
            let t = self.tok();
            if let T::Keyword(k) = t.kind {
                self.unsupported(format!("`{}` functions", k.as_str()), t.lo, t.hi);
            }
            if same_kind(t.kind, T::Eof) {
                return None;
            }
            self.bump();
        }
        Some(self.parse_fn())
    }

    /// Skips the rest of an item outside the subset: up to a `;` or a `{ … }` group at
    /// depth zero (both consumed), or an unmatched `}`.
    pub(super) fn skip_item_rest(&mut self) {
        loop {
            match self.peek() {
                T::Eof | T::CloseBrace | T::CloseParen | T::CloseBracket => return,
                T::Semi => {
                    self.bump();
                    return;
                }
                T::OpenBrace => {
                    self.skip_token_tree();
                    self.eat(T::Semi);
                    return;
                }
                T::OpenParen | T::OpenBracket => self.skip_token_tree(),
                _ => self.bump(),
            }
        }
    }

    /// Outer attributes (`#[…]`) and doc comments between them.
    fn parse_outer_attrs(&mut self) -> Attrs {
        let mut attrs = Attrs::default();
        loop {
            if self.peek().doc_style().is_some() {
                self.skip_doc_comments(false);
                continue;
            }
            if !self.at(T::Pound) {
                return attrs;
            }
            let lo = self.lo();
            self.bump();
            if self.at(T::Bang) {
                self.bump();
                if self.at(T::OpenBracket) {
                    self.skip_token_tree();
                }
                self.report(
                    Diagnostic::unsupported("inner attributes", Span::new(lo, self.prev_hi()))
                        .with_note(
                            "inner attributes are allowed only at the start of a file or module",
                        ),
                );
                continue;
            }
            if !self.at(T::OpenBracket) {
                let msg = format!("expected `[`, found {}", self.found());
                self.error_here(msg);
                return attrs;
            }
            if self.is_derive_clone_copy() {
                self.skip_token_tree();
                let span = Span::new(lo, self.prev_hi());
                if attrs.derive.is_some() {
                    self.report(Diagnostic::unsupported(
                        "more than one `#[derive(Clone, Copy)]`",
                        span,
                    ));
                }
                attrs.derive = Some(span);
            } else {
                self.skip_token_tree();
                let hi = self.prev_hi();
                let text = &self.text[lo as usize..hi as usize];
                let shown = if text.len() > 60 { "#[…]" } else { text };
                self.unsupported(format!("attribute `{shown}`"), lo, hi);
            }
        }
    }

    /// At `[`: whether the attribute is exactly `derive(Clone, Copy)` in either order
    /// (a trailing comma allowed).
    fn is_derive_clone_copy(&self) -> bool {
        let text_at = |i: usize| {
            let t = self.toks.get(self.pos + i).copied();
            t.map(|t| (t.kind, self.tok_text(t)))
        };
        let ident = |i: usize, name: &str| text_at(i) == Some((T::Ident, name));
        if !ident(1, "derive") || !self.nth_is(2, T::OpenParen) {
            return false;
        }
        let both =
            (ident(3, "Clone") && ident(5, "Copy")) || (ident(3, "Copy") && ident(5, "Clone"));
        if !both || !self.nth_is(4, T::Comma) {
            return false;
        }
        matches!(
            (self.nth(6), self.nth(7), self.nth(8)),
            (T::CloseParen, T::CloseBracket, _) | (T::Comma, T::CloseParen, T::CloseBracket)
        )
    }

    fn parse_visibility(&mut self) -> Visibility {
        if !self.at_kw(Kw::Pub) {
            return Visibility::Private;
        }
        let lo = self.lo();
        self.bump();
        if self.at(T::OpenParen) {
            // `pub(crate)`, `pub(super)`, `pub(in path)`; but not a tuple struct field's
            // type, which cannot follow `pub` in the subset anyway.
            self.skip_token_tree();
            self.unsupported("restricted visibility", lo, self.prev_hi());
        }
        Visibility::Pub
    }

    /// A name where rustc wants an identifier: a keyword is reported and used as the
    /// name (so that the rest parses), anything else is reported and not consumed.
    pub(super) fn expect_name(&mut self) -> Ident {
        match self.peek() {
            T::Ident => self.bump_ident(),
            T::Keyword(_) | T::Underscore => {
                self.expected_ident_error();
                let t = self.tok();
                let name = self.intern(self.tok_text(t));
                self.bump();
                Ident {
                    name,
                    span: self.rel(t.lo, t.hi),
                }
            }
            _ => {
                self.expected_ident_error();
                self.missing_ident()
            }
        }
    }

    /// Generic parameters `<…>` after an item name: reported, skipped.
    fn skip_generics_unsupported(&mut self) {
        if self.at(T::Lt) {
            let lo = self.lo();
            self.skip_angle_brackets();
            self.unsupported("generics", lo, self.prev_hi());
        }
    }

    /// `where …` before a body: reported, skipped up to the `{` or `;`.
    fn skip_where_clause(&mut self) {
        if self.at_kw(Kw::Where) {
            let lo = self.lo();
            self.skip_balanced_until(&[T::OpenBrace, T::Semi]);
            self.unsupported("`where` clauses", lo, self.prev_hi());
        }
    }

    fn parse_fn(&mut self) -> ItemKind {
        self.clear_arena();
        self.bump(); // `fn`
        let name = self.expect_name();
        self.skip_generics_unsupported();
        let mut params = Vec::new();
        if self.at(T::OpenParen) {
            self.bump();
            self.parse_params(&mut params);
        } else {
            let msg = format!("expected `(`, found {}", self.found());
            self.error_here(msg);
        }
        let ret = if self.eat(T::RArrow) {
            Some(self.parse_type())
        } else {
            None
        };
        self.skip_where_clause();
        let body = if self.at(T::OpenBrace) {
            self.parse_block_expr_with(true)
        } else if self.at(T::Semi) {
            let t = self.tok();
            self.bump();
            self.report(
                Diagnostic::error("free function without a body", Span::new(t.lo, t.hi))
                    .with_label_message("provide a definition for the function: `{ <body> }`"),
            );
            let span = self.rel(t.lo, t.hi);
            self.alloc_expr(ExprKind::Missing, span)
        } else {
            let msg = format!("expected `{{`, found {}", self.found());
            self.error_here(msg);
            self.skip_balanced_until(ITEM_RECOVERY);
            self.missing_expr_here()
        };
        let arena = self.take_arena();
        ItemKind::Fn(Arc::new(FnDef {
            name,
            params,
            ret,
            body,
            arena,
        }))
    }

    /// Parameters after the `(`, up to and including the `)`.
    fn parse_params(&mut self, params: &mut Vec<Param>) {
        loop {
            self.skip_param_attrs();
            if self.eat(T::CloseParen) {
                return;
            }
            if matches!(self.peek(), T::Eof | T::OpenBrace | T::Semi | T::RArrow) {
                self.expect(T::CloseParen);
                return;
            }
            let start = self.pos;
            if let Some(p) = self.parse_param() {
                params.push(p);
            }
            if self.eat(T::Comma) {
                continue;
            }
            if self.eat(T::CloseParen) {
                return;
            }
            let msg = format!("expected one of `,` or `)`, found {}", self.found());
            self.error_here(msg);
            self.skip_balanced_until(&[T::Comma, T::OpenBrace, T::Semi]);
            if !self.eat(T::Comma) {
                self.eat(T::CloseParen);
                return;
            }
            if self.pos == start {
                self.bump();
            }
        }
    }

    fn skip_param_attrs(&mut self) {
        while self.at(T::Pound) && self.nth_is(1, T::OpenBracket) {
            let lo = self.lo();
            self.bump();
            self.skip_token_tree();
            self.unsupported("attributes on parameters", lo, self.prev_hi());
        }
    }

    fn parse_param(&mut self) -> Option<Param> {
        let lo = self.lo();
        // `self`, `mut self`, `&self`, `&mut self`, `&'a self`.
        let self_at = match (self.peek(), self.nth(1), self.nth(2)) {
            (T::Keyword(Kw::SelfValue), _, _) => Some(0),
            (T::Keyword(Kw::Mut) | T::And, T::Keyword(Kw::SelfValue), _) => Some(1),
            (T::And, T::Keyword(Kw::Mut) | T::Lifetime { .. }, T::Keyword(Kw::SelfValue)) => {
                Some(2)
            }
            _ => None,
        };
        if self_at.is_some() {
            self.skip_balanced_until(&[T::Comma]);
            self.report(
                Diagnostic::error(
                    "`self` parameter is only allowed in associated functions",
                    Span::new(lo, self.prev_hi()),
                )
                .with_label_message("not semantically valid as function parameter")
                .with_note("associated functions are those in `impl` or `trait` definitions"),
            );
            return None;
        }
        let mutable = self.eat_kw(Kw::Mut);
        let name = match self.peek() {
            T::Ident if self.nth_is(1, T::Colon) => self.bump_ident(),
            T::Keyword(_) if self.nth_is(1, T::Colon) => self.expect_name(),
            T::Eof | T::CloseParen | T::Comma => {
                self.expected_ident_error();
                return None;
            }
            _ => {
                // Any other pattern (`_`, `(a, b)`, `S { x }`): skip it.
                let pat_lo = self.lo();
                self.skip_balanced_until(&[T::Colon, T::Comma, T::OpenBrace, T::Semi]);
                self.unsupported(
                    "patterns other than identifiers in parameters",
                    pat_lo,
                    self.prev_hi().max(pat_lo),
                );
                if self.eat(T::Colon) {
                    self.parse_type();
                }
                return None;
            }
        };
        self.expect(T::Colon);
        let ty = self.parse_type();
        Some(Param {
            mutable,
            name,
            ty,
            span: self.rel_from(lo),
        })
    }

    fn parse_const(&mut self) -> ItemKind {
        let kw = self.tok();
        self.bump(); // `const`
        let name = if self.at(T::Underscore) {
            let t = self.tok();
            self.unsupported("unnamed constants `const _`", t.lo, t.hi);
            self.bump();
            Ident {
                name: self.intern("_"),
                span: self.rel(t.lo, t.hi),
            }
        } else {
            self.expect_name()
        };
        self.skip_generics_unsupported();
        let ty = if self.eat(T::Colon) {
            self.parse_type()
        } else {
            let span = Span::new(self.prev_hi(), self.prev_hi());
            self.error_at(
                Diagnostic::error("missing type for `const` item", span)
                    .with_label_message("provide a type for the item"),
            );
            let span = self.rel(span.lo, span.hi);
            self.arena.alloc_type(Type {
                kind: TypeKind::Error,
                span,
            })
        };
        let value = if self.eat(T::Eq) {
            self.parse_expr()
        } else {
            self.report(
                Diagnostic::error(
                    "free constant item without body",
                    Span::new(kw.lo, self.prev_hi()),
                )
                .with_label_message("provide a definition for the constant: `= <expr>;`"),
            );
            self.missing_expr_here()
        };
        self.expect_item_semi();
        let arena = self.take_arena();
        ItemKind::Const(Arc::new(ConstDef {
            name,
            ty,
            value,
            arena,
        }))
    }

    /// The `;` ending a `const`, `type` or `use` item; on error, resynchronize.
    fn expect_item_semi(&mut self) {
        if !self.expect(T::Semi) {
            self.skip_balanced_until(&[T::Semi]);
            if !self.eat(T::Semi) {
                self.skip_balanced_until(ITEM_RECOVERY);
            }
        }
    }

    fn parse_struct(&mut self, attrs: &Attrs, item_lo: u32) -> ItemKind {
        let kw = self.tok();
        self.bump(); // `struct`
        let name = self.expect_name();
        self.skip_generics_unsupported();
        self.skip_where_clause();
        let mut fields = Vec::new();
        match self.peek() {
            T::OpenBrace => {
                self.bump();
                self.parse_fields(&mut fields);
            }
            T::Semi => {
                self.bump();
                self.unsupported("unit structs", kw.lo, self.prev_hi());
            }
            T::OpenParen => {
                self.skip_token_tree();
                self.skip_where_clause();
                self.eat(T::Semi);
                self.unsupported("tuple structs", kw.lo, self.prev_hi());
            }
            _ => {
                let msg = format!("expected `{{`, found {}", self.found());
                self.error_here(msg);
                self.skip_balanced_until(ITEM_RECOVERY);
            }
        }
        if attrs.derive.is_none() {
            self.report(
                Diagnostic::unsupported(
                    "structs without `#[derive(Clone, Copy)]`",
                    Span::new(item_lo, name.span.hi + self.base),
                )
                .with_note("every struct must carry exactly `#[derive(Clone, Copy)]`"),
            );
        }
        let arena = self.take_arena();
        ItemKind::Struct(Arc::new(StructDef {
            name,
            fields,
            arena,
        }))
    }

    /// Fields after the `{`, up to and including the `}`.
    fn parse_fields(&mut self, fields: &mut Vec<FieldDef>) {
        loop {
            let doc = self.skip_doc_comments(false);
            if self.at(T::CloseBrace) {
                if let Some(lo) = doc {
                    self.dangling_doc_comment(lo, self.prev_hi());
                }
                self.bump();
                return;
            }
            if self.at(T::Eof) {
                self.expect(T::CloseBrace);
                return;
            }
            let start = self.pos;
            let lo = doc.unwrap_or_else(|| self.lo());
            while self.at(T::Pound) {
                let alo = self.lo();
                self.bump();
                self.eat(T::Bang);
                if self.at(T::OpenBracket) {
                    self.skip_token_tree();
                }
                self.unsupported("attributes on fields", alo, self.prev_hi());
            }
            let vis = self.parse_visibility();
            let name = self.expect_name();
            let ty = if self.expect(T::Colon) {
                self.parse_type()
            } else {
                let lo = self.lo();
                let span = self.rel(lo, lo);
                self.arena.alloc_type(Type {
                    kind: TypeKind::Error,
                    span,
                })
            };
            fields.push(FieldDef {
                vis,
                name,
                ty,
                span: self.rel_from(lo),
            });
            if self.eat(T::Comma) {
                continue;
            }
            if self.eat(T::CloseBrace) {
                return;
            }
            let msg = format!("expected `,`, or `}}`, found {}", self.found());
            self.error_here(msg);
            self.skip_balanced_until(&[T::Comma, T::Semi]);
            if !self.eat(T::Comma) {
                if self.at(T::Semi) {
                    self.bump();
                    continue;
                }
                self.eat(T::CloseBrace);
                return;
            }
            if self.pos == start {
                self.bump();
            }
        }
    }

    fn parse_type_alias(&mut self) -> ItemKind {
        let kw = self.tok();
        self.bump(); // `type`
        let name = self.expect_name();
        self.skip_generics_unsupported();
        let ty = if self.eat(T::Eq) {
            self.parse_type()
        } else {
            if self.at(T::Colon) {
                self.skip_balanced_until(&[T::Semi, T::Eq]);
                self.unsupported("bounds on type aliases", kw.lo, self.prev_hi());
            }
            if self.eat(T::Eq) {
                self.parse_type()
            } else {
                self.report(
                    Diagnostic::error(
                        "free type alias without body",
                        Span::new(kw.lo, self.prev_hi()),
                    )
                    .with_label_message("provide a definition for the type: `= <type>;`"),
                );
                let lo = self.lo();
                let span = self.rel(lo, lo);
                self.arena.alloc_type(Type {
                    kind: TypeKind::Error,
                    span,
                })
            }
        };
        self.skip_where_clause();
        self.expect_item_semi();
        let arena = self.take_arena();
        ItemKind::TypeAlias(Arc::new(TypeAliasDef { name, ty, arena }))
    }

    fn parse_mod(&mut self) -> Option<ItemKind> {
        let kw = self.tok();
        self.bump(); // `mod`
        let name = self.expect_name();
        if self.eat(T::Semi) {
            return Some(ItemKind::Mod(Arc::new(ModDef { name, items: None })));
        }
        if !self.at(T::OpenBrace) {
            let msg = format!("expected `;` or `{{`, found {}", self.found());
            self.error_here(msg);
            self.skip_balanced_until(ITEM_RECOVERY);
            return Some(ItemKind::Mod(Arc::new(ModDef { name, items: None })));
        }
        if self.module_depth >= MAX_MODULE_DEPTH {
            self.skip_token_tree();
            self.module_limit_error(kw.lo, self.prev_hi());
            return Some(ItemKind::Mod(Arc::new(ModDef {
                name,
                items: Some(Vec::new()),
            })));
        }
        self.bump_over(); // `{`
        self.module_depth += 1;
        let mut items = Vec::new();
        self.skip_inner_attrs_and_docs();
        self.parse_item_list(&mut items, true);
        self.module_depth -= 1;
        if !self.eat(T::CloseBrace) {
            self.unclosed_delimiter_error(kw.lo);
        }
        Some(ItemKind::Mod(Arc::new(ModDef {
            name,
            items: Some(items),
        })))
    }

    /// At the end of the file inside a delimiter opened at `open_lo`.
    pub(super) fn unclosed_delimiter_error(&mut self, open_lo: u32) {
        // Like rustc, point just after the last non-blank character of the file.
        let end = self.text.trim_end().len() as u32;
        self.error_at(
            Diagnostic::error(
                "this file contains an unclosed delimiter",
                Span::new(end, end),
            )
            .with_secondary(Span::new(open_lo, open_lo + 1), "unclosed delimiter"),
        );
    }

    fn parse_use(&mut self) -> ItemKind {
        self.bump(); // `use`
        let tree = self.parse_use_tree();
        self.expect_item_semi();
        ItemKind::Use(Arc::new(UseDef { tree }))
    }

    fn parse_use_tree(&mut self) -> UseTree {
        let lo = self.lo();
        if self.at(T::PathSep) {
            let t = self.tok();
            self.bump();
            self.unsupported("paths starting with `::`", t.lo, t.hi);
        }
        let mut segments = Vec::new();
        let mut kind = None;
        loop {
            match self.peek() {
                T::OpenBrace => {
                    kind = Some(self.parse_use_group());
                    break;
                }
                T::Star => {
                    let t = self.tok();
                    self.bump();
                    self.unsupported("glob imports", t.lo, t.hi);
                    kind = Some(UseTreeKind::Nested(Vec::new()));
                    break;
                }
                _ => {}
            }
            let t = self.tok();
            let seg = match t.kind {
                T::Ident => {
                    let id = self.bump_ident();
                    PathSegmentKind::Name(id.name)
                }
                T::Keyword(Kw::Crate) => {
                    self.bump();
                    PathSegmentKind::Crate
                }
                T::Keyword(Kw::SelfValue) => {
                    self.bump();
                    PathSegmentKind::SelfMod
                }
                T::Keyword(Kw::Super) => {
                    self.bump();
                    PathSegmentKind::Super
                }
                _ => {
                    self.expected_ident_error();
                    break;
                }
            };
            segments.push(PathSegment {
                kind: seg,
                span: self.rel(t.lo, t.hi),
            });
            if !self.eat(T::PathSep) {
                break;
            }
        }
        let kind = match kind {
            Some(k) => k,
            None => {
                let rename = if self.eat_kw(Kw::As) {
                    if self.at(T::Underscore) {
                        let t = self.tok();
                        self.bump();
                        self.unsupported("`use … as _`", t.lo, t.hi);
                        None
                    } else {
                        Some(self.expect_name())
                    }
                } else {
                    None
                };
                UseTreeKind::Simple { rename }
            }
        };
        let path_span = match (segments.first(), segments.last()) {
            (Some(f), Some(l)) => f.span.to(l.span),
            _ => self.rel(lo, lo),
        };
        UseTree {
            prefix: Path {
                segments: segments.into(),
                span: path_span,
            },
            kind,
            span: self.rel_from(lo),
        }
    }

    /// At `{` in a use tree: the nested trees, up to and including the `}`.
    fn parse_use_group(&mut self) -> UseTreeKind {
        let open = self.lo();
        self.bump();
        let mut trees = Vec::new();
        if !self.enter() {
            self.unbump();
            self.skip_token_tree();
            return UseTreeKind::Nested(trees);
        }
        loop {
            if self.eat(T::CloseBrace) {
                break;
            }
            if self.at(T::Eof) {
                self.unclosed_delimiter_error(open);
                break;
            }
            let start = self.pos;
            trees.push(self.parse_use_tree());
            if self.eat(T::Comma) {
                continue;
            }
            if self.eat(T::CloseBrace) {
                break;
            }
            let msg = format!(
                "expected one of `,`, `::`, `as`, or `}}`, found {}",
                self.found()
            );
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
        self.leave();
        UseTreeKind::Nested(trees)
    }
}

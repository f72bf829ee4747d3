//! The parser: source text to a syntax tree (`crate::syntax::ast`) and a list of errors.
//!
//! Hand-written recursive descent with precedence climbing for binary operators. It never
//! fails: where something cannot be parsed it reports an error, inserts a placeholder
//! (`ExprKind::Missing`, `TypeKind::Error`) and resynchronizes at a named recovery set
//! (`items::ITEM_RECOVERY`, `stmts::STMT_RECOVERY`). Every loop that consumes tokens has
//! a no-progress guard, and every recursion that input nesting drives is bounded by
//! `MAX_NESTING` / `MAX_MODULE_DEPTH`, so no input can overflow the stack.
//!
//! The parser works on a slice of significant tokens (whitespace and plain comments
//! dropped, doc comments kept) with precomputed absolute offsets. Inside an item, every
//! span is stored relative to the item's first token (`Parser::base`); diagnostics carry
//! absolute file offsets.
//!
//! Submodules: `items` (items, attributes, `use` trees), `stmts` (blocks and
//! statements), `exprs` (expressions), `types` (types and paths), `literals`
//! (integer literals, string escapes, `println!` format strings).

mod exprs;
mod items;
mod literals;
mod stmts;
mod types;

use crate::diag::Diagnostic;
use crate::intern::{Symbol, SymbolCache};
use crate::limits::{MAX_FILE_SIZE, MAX_IDENT_LEN, MAX_MODULE_DEPTH, MAX_NESTING};
use crate::span::Span;
use crate::syntax::ast::{
    Arena, Expr, ExprId, ExprKind, FieldInit, Ident, IntLit, Item, SourceFileAst, StmtId,
};
use crate::syntax::lexer::{
    lex_significant_into, DocStyle, Keyword, LiteralKind, TokenKind, TokenSink, RESERVE_WINDOW,
};

/// Parses one file. Diagnostics carry absolute byte offsets in `text` (`file: None`).
pub fn parse_file(text: &str) -> (SourceFileAst, Vec<Diagnostic>) {
    if text.len() > MAX_FILE_SIZE {
        let d = Diagnostic::error_no_span(format!(
            "source file is larger than the implementation limit of {MAX_FILE_SIZE} bytes \
             (MAX_FILE_SIZE)"
        ));
        return (SourceFileAst { items: Vec::new() }, vec![d]);
    }
    let mut p = Parser::new(text);
    let items = p.parse_file_items();
    let diags = p.finish();
    (SourceFileAst { items }, diags)
}

/// Parses `text` as one item at the start of an item list, as [`parse_file`] parses each
/// item of a file: the item, with offsets in `text`, when it parsed without a diagnostic
/// and its tokens are all of `text`'s; `None` otherwise. A file that is a sequence of
/// such item texts (separated by whitespace and plain comments) parses into these items:
/// the parser starts every item in the same state and reads no token past its end.
pub fn parse_one_item(text: &str) -> Option<Item> {
    if text.len() > MAX_FILE_SIZE {
        return None;
    }
    let mut p = Parser::new(text);
    let item = p.parse_item();
    let clean = same_kind(p.peek(), TokenKind::Eof) && p.diags.is_empty();
    p.finish();
    item.filter(|_| clean)
}

/// A significant token with its absolute byte range.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tok {
    pub kind: TokenKind,
    pub lo: u32,
    pub hi: u32,
}

/// The parser's buffers that outlive one parse: the pool of emptied item arenas and the
/// scratch stacks, all empty, with the capacity earlier parses on this thread gave them.
/// A parse takes them from the thread (see [`Buffers::take_for_thread`]) and gives them
/// back at its end, so parsing many small texts (the query driver parses every item
/// chunk on its own) does not grow each arena and stack from nothing again.
#[derive(Default)]
struct Buffers {
    arena_pool: Vec<Arena>,
    scratch_exprs: Vec<ExprId>,
    scratch_stmts: Vec<StmtId>,
    scratch_fields: Vec<FieldInit>,
}

thread_local! {
    static THREAD_BUFFERS: std::cell::Cell<Option<Buffers>> = const { std::cell::Cell::new(None) };
}

impl Buffers {
    /// This thread's buffers (new, empty ones if they are in use or were never made).
    fn take_for_thread() -> Buffers {
        THREAD_BUFFERS.with(|c| c.take()).unwrap_or_default()
    }

    /// Makes these (emptied) buffers the thread's again, for the next parse.
    fn give_back(mut self) {
        for arena in &mut self.arena_pool {
            clear(arena);
        }
        self.scratch_exprs.clear();
        self.scratch_stmts.clear();
        self.scratch_fields.clear();
        THREAD_BUFFERS.with(|c| c.set(Some(self)));
    }
}

/// Empties every vector of `arena`, keeping its capacity.
fn clear(arena: &mut Arena) {
    arena.exprs.clear();
    arena.stmts.clear();
    arena.types.clear();
    arena.expr_lists.clear();
    arena.stmt_lists.clear();
    arena.field_inits.clear();
    arena.segments.clear();
    arena.fmt_pieces.clear();
    arena.wide_ints.clear();
    arena.for_loops.clear();
    arena.struct_lits.clear();
}

pub(crate) struct Parser<'a> {
    text: &'a str,
    toks: Vec<Tok>,
    /// Index of the current token in `toks`; `toks` ends with an `Eof` token.
    pos: usize,
    /// `toks[pos]`, kept beside the list: the current token is read far more often than
    /// the position moves.
    cur: Tok,
    /// The end of `toks[pos - 1]` (the start of `toks[0]` at position 0).
    prev_hi: u32,
    pub diags: Vec<Diagnostic>,
    /// The arena of the item being parsed.
    arena: Arena,
    /// Absolute offset of the item being parsed: spans in the tree are relative to it.
    base: u32,
    /// Current nesting depth of expressions, blocks and types in this item.
    depth: u32,
    /// Current nesting depth of modules.
    module_depth: u32,
    /// The nesting limit was reported for the current item (reported once per item).
    nesting_reported: bool,
    /// The token index of the last error, to report at most one error per token.
    last_error_at: usize,
    /// A `Missing` expression that stands for a block-like construct (`match`, `unsafe {}`,
    /// a labeled block): it ends an expression statement like a block does.
    block_like_missing: Option<ExprId>,
    /// How many items inside function bodies enclose the current position.
    body_item_depth: u32,
    /// Stacks on which lists are collected before they are copied into exactly sized
    /// vectors (nested lists push above their parent's part).
    scratch_exprs: Vec<ExprId>,
    scratch_stmts: Vec<StmtId>,
    /// Emptied arenas of finished items, kept with their capacity: an item is parsed
    /// into one of them (one per level of item nesting in use) and its nodes are then
    /// moved into exactly sized vectors, so building an item never regrows or shrinks.
    arena_pool: Vec<Arena>,
    /// A stack on which struct literal fields are collected (like `scratch_exprs`).
    scratch_fields: Vec<FieldInit>,
    /// This thread's cache in front of the global interner (taken for the parse, given
    /// back at its end): most identifiers repeat, and the global table takes a lock.
    symbols: SymbolCache,
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Parser<'a> {
        let mut diags = Vec::new();
        let toks = significant_tokens(text, &mut diags);
        let cur = toks[0];
        let buffers = Buffers::take_for_thread();
        Parser {
            text,
            toks,
            pos: 0,
            cur,
            prev_hi: cur.lo,
            diags,
            arena: Arena::default(),
            base: 0,
            depth: 0,
            module_depth: 0,
            nesting_reported: false,
            last_error_at: usize::MAX,
            block_like_missing: None,
            body_item_depth: 0,
            scratch_exprs: buffers.scratch_exprs,
            scratch_stmts: buffers.scratch_stmts,
            arena_pool: buffers.arena_pool,
            scratch_fields: buffers.scratch_fields,
            symbols: SymbolCache::take_for_thread(),
        }
    }

    /// Ends the parse: gives the symbol cache and the reusable buffers back to the
    /// thread and returns the diagnostics.
    fn finish(self) -> Vec<Diagnostic> {
        self.symbols.give_back();
        Buffers {
            arena_pool: self.arena_pool,
            scratch_exprs: self.scratch_exprs,
            scratch_stmts: self.scratch_stmts,
            scratch_fields: self.scratch_fields,
        }
        .give_back();
        self.diags
    }

    // --- Tokens ------------------------------------------------------------------------

    #[inline]
    fn tok(&self) -> Tok {
        self.cur
    }

    #[inline]
    fn peek(&self) -> TokenKind {
        self.cur.kind
    }

    #[inline]
    fn nth(&self, n: usize) -> TokenKind {
        match self.toks.get(self.pos + n) {
            Some(t) => t.kind,
            None => TokenKind::Eof,
        }
    }

    /// Whether the token `n` ahead is `kind` (inlined, unlike the derived `==`).
    #[inline]
    fn nth_is(&self, n: usize, kind: TokenKind) -> bool {
        same_kind(self.nth(n), kind)
    }

    #[inline]
    fn at(&self, kind: TokenKind) -> bool {
        same_kind(self.peek(), kind)
    }

    #[inline]
    fn at_kw(&self, kw: Keyword) -> bool {
        matches!(self.peek(), TokenKind::Keyword(k) if k == kw)
    }

    #[inline]
    fn bump(&mut self) {
        if self.pos + 1 < self.toks.len() {
            self.bump_over();
        }
    }

    /// Consumes the current token, which is not `Eof` (so a token follows it): no end
    /// check.
    #[inline(always)]
    fn bump_over(&mut self) {
        debug_assert!(!matches!(self.peek(), TokenKind::Eof));
        self.prev_hi = self.cur.hi;
        self.pos += 1;
        self.cur = self.toks[self.pos];
    }

    /// Moves back to the token before the current one (which must not be the first).
    fn unbump(&mut self) {
        self.pos -= 1;
        self.cur = self.toks[self.pos];
        self.prev_hi = match self.pos.checked_sub(1) {
            Some(prev) => self.toks[prev].hi,
            None => self.toks[0].lo,
        };
    }

    /// Consumes the current token if it is `kind` (never `Eof`).
    #[inline]
    fn eat(&mut self, kind: TokenKind) -> bool {
        debug_assert!(!matches!(kind, TokenKind::Eof));
        if self.at(kind) {
            self.bump_over();
            true
        } else {
            false
        }
    }

    #[inline]
    fn eat_kw(&mut self, kw: Keyword) -> bool {
        self.eat(TokenKind::Keyword(kw))
    }

    /// Absolute start of the current token.
    #[inline]
    fn lo(&self) -> u32 {
        self.cur.lo
    }

    /// Absolute end of the previous token (the current start at the beginning).
    #[inline]
    fn prev_hi(&self) -> u32 {
        self.prev_hi
    }

    /// Whether a line break separates the previous token from the current one.
    fn newline_before_current(&self) -> bool {
        let (from, to) = (self.prev_hi() as usize, self.lo() as usize);
        self.text.as_bytes()[from.min(to)..to].contains(&b'\n')
    }

    fn tok_text(&self, t: Tok) -> &'a str {
        &self.text[t.lo as usize..t.hi as usize]
    }

    /// A span relative to the current item from absolute offsets.
    #[inline]
    fn rel(&self, lo: u32, hi: u32) -> Span {
        Span::new(lo.saturating_sub(self.base), hi.saturating_sub(self.base))
    }

    /// The relative span from absolute `lo` to the end of the previous token.
    #[inline]
    fn rel_from(&self, lo: u32) -> Span {
        let hi = self.prev_hi().max(lo);
        self.rel(lo, hi)
    }

    #[inline]
    fn intern(&mut self, s: &'a str) -> Symbol {
        self.symbols.intern(s.as_bytes())
    }

    /// How rustc names the current token in "expected …, found …".
    fn found(&self) -> String {
        describe(self.tok(), self.text)
    }

    // --- Diagnostics -------------------------------------------------------------------

    /// Reports an error at absolute offsets, at most one per token position.
    /// A run of the same error on consecutive tokens (`) ) )`, `pub pub pub`) is
    /// reported once.
    fn error_at(&mut self, d: Diagnostic) {
        if self.last_error_at == self.pos {
            return;
        }
        let repeated = self.last_error_at.wrapping_add(1) == self.pos
            && self
                .diags
                .last()
                .is_some_and(|last| last.message == d.message);
        self.last_error_at = self.pos;
        if !repeated {
            self.diags.push(d);
        }
    }

    /// Reports an error that is not tied to the current token (never suppressed).
    fn report(&mut self, d: Diagnostic) {
        self.diags.push(d);
    }

    fn error_here(&mut self, message: impl Into<String>) {
        let t = self.tok();
        self.error_at(Diagnostic::error(message, Span::new(t.lo, t.hi)));
    }

    fn unsupported(&mut self, what: impl std::fmt::Display, lo: u32, hi: u32) {
        self.report(Diagnostic::unsupported(what, Span::new(lo, hi)));
    }

    /// Reports "expected `x`, found …" unless the token is there; consumes it if it is.
    fn expect(&mut self, kind: TokenKind) -> bool {
        if self.eat(kind) {
            return true;
        }
        let what = kind.punct_str().unwrap_or("?");
        let msg = format!("expected `{what}`, found {}", self.found());
        self.error_here(msg);
        false
    }

    /// Reports "expected identifier, found …"; keywords are named as rustc names them.
    fn expected_ident_error(&mut self) {
        let msg = format!("expected identifier, found {}", self.found());
        self.error_here(msg);
    }

    /// Consumes the current `Ident` token.
    #[inline(always)]
    fn bump_ident(&mut self) -> Ident {
        let t = self.tok();
        // Bytes, not `&str`: token boundaries are char boundaries, no need to check them.
        let text: &'a [u8] = &self.text.as_bytes()[t.lo as usize..t.hi as usize];
        // A raw identifier (reported when lexed) stands for the name after `r#`.
        let text = match text {
            [b'r', b'#', name @ ..] => name,
            _ => text,
        };
        if text.len() > MAX_IDENT_LEN {
            self.long_ident_error(t);
        }
        let name = self.symbols.intern(text);
        self.bump_over();
        Ident {
            name,
            span: self.rel(t.lo, t.hi),
        }
    }

    #[cold]
    #[inline(never)]
    fn long_ident_error(&mut self, t: Tok) {
        self.report(Diagnostic::error(
            format!(
                "identifier is longer than the implementation limit of {MAX_IDENT_LEN} \
                 bytes (MAX_IDENT_LEN)"
            ),
            Span::new(t.lo, t.hi),
        ));
    }

    /// An identifier standing in for one that could not be parsed.
    fn missing_ident(&mut self) -> Ident {
        let lo = self.lo();
        Ident {
            name: self.intern("{missing}"),
            span: self.rel(lo, lo),
        }
    }

    // --- Nesting -----------------------------------------------------------------------

    /// Enters one level of nesting; `false` (after reporting once per item) when the
    /// limit is reached, in which case the caller must not recurse.
    fn enter(&mut self) -> bool {
        if self.depth >= MAX_NESTING {
            self.nesting_limit_error();
            return false;
        }
        self.depth += 1;
        true
    }

    fn leave(&mut self) {
        self.depth -= 1;
    }

    fn nesting_limit_error(&mut self) {
        if !self.nesting_reported {
            self.nesting_reported = true;
            let t = self.tok();
            self.report(Diagnostic::error(
                format!(
                    "expression nesting is deeper than the implementation limit of \
                     {MAX_NESTING} (MAX_NESTING)"
                ),
                Span::new(t.lo, t.hi),
            ));
        }
    }

    fn module_limit_error(&mut self, lo: u32, hi: u32) {
        self.report(Diagnostic::error(
            format!(
                "module nesting is deeper than the implementation limit of {MAX_MODULE_DEPTH} \
                 (MAX_MODULE_DEPTH)"
            ),
            Span::new(lo, hi),
        ));
    }

    /// After the nesting limit: skips the rest of the current expression (balanced
    /// delimiters, up to a `;`, `,` or an unmatched closing delimiter) and returns a
    /// `Missing` expression covering it. Iterative, so any depth is fine.
    fn skip_nested_expr(&mut self) -> ExprId {
        let lo = self.lo();
        self.skip_balanced_until(&[TokenKind::Semi, TokenKind::Comma]);
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::Missing, span)
    }

    /// Skips tokens, keeping delimiters balanced, until one of `stop` at depth zero, an
    /// unmatched closing delimiter, or the end of the file. Never recurses.
    fn skip_balanced_until(&mut self, stop: &[TokenKind]) {
        let mut depth = 0usize;
        loop {
            let k = self.peek();
            if depth == 0 && stop.contains(&k) {
                return;
            }
            match k {
                TokenKind::Eof => return,
                TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => depth += 1,
                TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                    if depth == 0 {
                        return;
                    }
                    depth -= 1;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// At an opening delimiter: skips to just after its matching closing delimiter (or to
    /// the end of the file). Never recurses.
    fn skip_token_tree(&mut self) {
        let mut depth = 0usize;
        loop {
            match self.peek() {
                TokenKind::Eof => return,
                TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => depth += 1,
                TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                    if depth <= 1 {
                        self.bump();
                        return;
                    }
                    depth -= 1;
                }
                _ if depth == 0 => {
                    self.bump();
                    return;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Makes an empty arena (from the pool) current for a new item; returns the arena of
    /// the enclosing item, to be given back to [`Parser::end_item_arena`].
    fn begin_item_arena(&mut self) -> Arena {
        let fresh = self.arena_pool.pop().unwrap_or_default();
        std::mem::replace(&mut self.arena, fresh)
    }

    /// Restores the enclosing item's arena; the current one goes back to the pool, empty.
    fn end_item_arena(&mut self, enclosing: Arena) {
        let mut used = std::mem::replace(&mut self.arena, enclosing);
        clear(&mut used);
        self.arena_pool.push(used);
    }

    /// Empties the current arena (keeping its capacity).
    fn clear_arena(&mut self) {
        clear(&mut self.arena);
    }

    /// Takes the finished nodes of the current item as an exactly sized arena, leaving
    /// the current arena empty.
    fn take_arena(&mut self) -> Arena {
        Arena {
            exprs: take_exact(&mut self.arena.exprs),
            stmts: take_exact(&mut self.arena.stmts),
            types: take_exact(&mut self.arena.types),
            expr_lists: take_exact(&mut self.arena.expr_lists),
            stmt_lists: take_exact(&mut self.arena.stmt_lists),
            field_inits: take_exact(&mut self.arena.field_inits),
            segments: take_exact(&mut self.arena.segments),
            fmt_pieces: take_exact(&mut self.arena.fmt_pieces),
            wide_ints: take_exact(&mut self.arena.wide_ints),
            for_loops: take_exact(&mut self.arena.for_loops),
            struct_lits: take_exact(&mut self.arena.struct_lits),
        }
    }

    #[inline]
    fn alloc_expr(&mut self, kind: ExprKind, span: Span) -> ExprId {
        self.arena.alloc_expr(Expr { kind, span })
    }

    /// An integer literal's expression (see [`Arena::alloc_int`]).
    #[inline]
    fn alloc_int(&mut self, lit: IntLit, span: Span) -> ExprId {
        let lit = self.arena.alloc_int(lit);
        self.alloc_expr(ExprKind::Int(lit), span)
    }

    fn missing_expr_here(&mut self) -> ExprId {
        let lo = self.lo();
        let span = self.rel(lo, lo);
        self.alloc_expr(ExprKind::Missing, span)
    }

    /// Skips doc comments where they are allowed and ignored (before items, fields and
    /// statements). An inner doc comment there is an error (E0753) unless `inner_ok`.
    /// Returns the absolute start of the first doc comment skipped, if any.
    #[inline]
    fn skip_doc_comments(&mut self, inner_ok: bool) -> Option<u32> {
        // Almost always there is none: no call.
        self.peek().doc_style()?;
        self.skip_present_doc_comments(inner_ok)
    }

    /// `skip_doc_comments` at a doc comment.
    #[inline(never)]
    fn skip_present_doc_comments(&mut self, inner_ok: bool) -> Option<u32> {
        let mut first = None;
        while let Some(style) = self.peek().doc_style() {
            let t = self.tok();
            if style == DocStyle::Inner && !inner_ok {
                self.report(
                    Diagnostic::error("expected outer doc comment", Span::new(t.lo, t.hi))
                        .with_code("E0753")
                        .with_note(
                            "inner doc comments like this (starting with `//!` or `/*!`) \
                             can only appear before items",
                        ),
                );
            }
            first.get_or_insert(t.lo);
            self.bump();
        }
        first
    }

    /// Reports a doc comment that documents nothing (before `}` or the end of a list).
    fn dangling_doc_comment(&mut self, lo: u32, hi: u32) {
        self.report(
            Diagnostic::error(
                "found a documentation comment that doesn't document anything",
                Span::new(lo, hi),
            )
            .with_code("E0585"),
        );
    }
}

/// The elements of `v` copied into an exactly sized vector, leaving `v` empty with its
/// capacity (the item arena's vectors are reused for the next item, so they stop growing
/// once they fit the largest item). One allocation per non-empty vector, and none of the
/// scratch capacity is handed to the allocator: handing the scratch vector over and
/// allocating a new one of the same capacity costs an allocation of the full capacity and
/// a shrinking reallocation per item instead.
fn take_exact<T>(v: &mut Vec<T>) -> Vec<T> {
    let mut exact = Vec::with_capacity(v.len());
    exact.append(v);
    exact
}

/// `a == b` for token kinds, inlined (the derived `eq` is an out-of-line call): with a
/// constant `b` it is one comparison of the discriminant.
#[inline(always)]
fn same_kind(a: TokenKind, b: TokenKind) -> bool {
    use TokenKind::*;
    match (a, b) {
        (LineComment { doc_style: x }, LineComment { doc_style: y }) => x == y,
        (
            BlockComment {
                doc_style: x,
                terminated: s,
            },
            BlockComment {
                doc_style: y,
                terminated: t,
            },
        ) => x == y && s == t,
        (Keyword(x), Keyword(y)) => x == y,
        (
            Lifetime {
                starts_with_number: x,
            },
            Lifetime {
                starts_with_number: y,
            },
        ) => x == y,
        (Literal { kind: x }, Literal { kind: y }) => x == y,
        _ => std::mem::discriminant(&a) == std::mem::discriminant(&b),
    }
}

/// How rustc names a token in "expected …, found …".
fn describe(t: Tok, text: &str) -> String {
    let s = &text[t.lo as usize..t.hi as usize];
    match t.kind {
        TokenKind::Eof => "`<eof>`".to_string(),
        TokenKind::Keyword(k) if is_reserved_keyword(k) => format!("reserved keyword `{s}`"),
        TokenKind::Keyword(_) => format!("keyword `{s}`"),
        TokenKind::LineComment { .. } | TokenKind::BlockComment { .. } => "doc comment".to_string(),
        _ => {
            // Long literals are shortened: the message must stay readable.
            if s.len() > 40 {
                let mut end = 40;
                while !s.is_char_boundary(end) {
                    end -= 1;
                }
                format!("`{}…`", &s[..end])
            } else {
                format!("`{s}`")
            }
        }
    }
}

fn is_reserved_keyword(k: Keyword) -> bool {
    use Keyword::*;
    matches!(
        k,
        Abstract
            | Become
            | Box
            | Do
            | Final
            | Macro
            | Override
            | Priv
            | Typeof
            | Unsized
            | Virtual
            | Yield
            | Try
    )
}

/// Lexes `text` into the parser's token list: whitespace and plain comments dropped,
/// lexical errors reported (and the offending token dropped or repaired), `Eof` appended.
fn significant_tokens(text: &str, diags: &mut Vec<Diagnostic>) -> Vec<Tok> {
    // Significant tokens average about 4 bytes of source in dense code: a third of the
    // length leaves room for them, and one window more for the lexer's reservations (a
    // token per byte of the next window), so that the vector (the parser's largest)
    // never regrows in dense code.
    let mut toks: Vec<Tok> =
        Vec::with_capacity(text.len() / 3 + text.len().min(RESERVE_WINDOW) + 2);
    let start = toks.as_mut_ptr();
    let mut sink = TokSink {
        text,
        diags,
        next: start,
        // SAFETY: one past the end of the allocation.
        end: unsafe { start.add(toks.capacity()) },
        toks: &mut toks,
    };
    lex_significant_into(text, &mut sink);
    let len = sink.len();
    // SAFETY: the first `len` tokens were written by `TokSink::emit`, within the
    // capacity.
    unsafe { toks.set_len(len) };
    let end = text.len() as u32;
    toks.push(Tok {
        kind: TokenKind::Eof,
        lo: end,
        hi: end,
    });
    toks
}

/// The parser's token list while the lexer fills it: where the next token goes and
/// where the allocation ends are kept here, apart from the vector (whose own length is 0
/// until the end), so that the next token's place stays in a register and a token is
/// written with no capacity test.
struct TokSink<'t, 'd, 'v> {
    text: &'t str,
    diags: &'d mut Vec<Diagnostic>,
    /// Where the next token goes, in `toks`' allocation.
    next: *mut Tok,
    /// The end of `toks`' allocation.
    end: *mut Tok,
    toks: &'v mut Vec<Tok>,
}

impl TokSink<'_, '_, '_> {
    /// How many tokens were written.
    fn len(&self) -> usize {
        // SAFETY: `next` is in `toks`' allocation, at or after its start.
        unsafe { self.next.offset_from(self.toks.as_ptr()) as usize }
    }
}

impl TokenSink for TokSink<'_, '_, '_> {
    #[inline]
    fn reserve(&mut self, n: usize) {
        // SAFETY: both in `toks`' allocation, `end` at or after `next`.
        let room = unsafe { self.end.offset_from(self.next) as usize };
        if room < n {
            let len = self.len();
            let (start, cap) = grow_tokens(self.toks, len, n);
            // SAFETY: `len` and `cap` are within the new allocation, or its end.
            (self.next, self.end) = unsafe { (start.add(len), start.add(cap)) };
        }
    }

    #[inline(always)]
    unsafe fn emit(&mut self, kind: TokenKind, lo: u32, hi: u32, common: bool) {
        // Identifiers, keywords, punctuation and plain integers go straight to the list.
        let kind = if common {
            kind
        } else {
            match review(self.text, kind, lo, hi, self.diags) {
                Some(kind) => kind,
                None => return,
            }
        };
        debug_assert!(self.next < self.end);
        // SAFETY: the caller emits at most `n` tokens after `reserve(n)`, which made room
        // for `n` tokens from `next` on.
        unsafe {
            self.next.write(Tok { kind, lo, hi });
            self.next = self.next.add(1);
        }
    }
}

/// Room in `toks`, whose first `len` tokens are written (its own length being 0), for
/// `n` more: the start and capacity of its allocation.
#[cold]
#[inline(never)]
fn grow_tokens(toks: &mut Vec<Tok>, len: usize, n: usize) -> (*mut Tok, usize) {
    // SAFETY: the first `len` tokens are written, within the capacity.
    unsafe { toks.set_len(len) };
    toks.reserve(n.max(len / 2));
    // Counted again when the lexer is done.
    unsafe { toks.set_len(0) };
    (toks.as_mut_ptr(), toks.capacity())
}

/// A token of `text` at `lo..hi` on its way into the parser's token list, other than
/// whitespace and the common kinds: reports it if it is a lexical error, and returns the
/// kind to keep (repaired for some errors), or `None` to drop it (plain comments,
/// unknown characters).
#[inline(never)]
fn review(
    text: &str,
    mut kind: TokenKind,
    lo: u32,
    hi: u32,
    diags: &mut Vec<Diagnostic>,
) -> Option<TokenKind> {
    let span = Span::new(lo, hi);
    match kind {
        TokenKind::Whitespace | TokenKind::LineComment { doc_style: None } => {
            return None;
        }
        TokenKind::BlockComment {
            doc_style,
            terminated,
        } => {
            if !terminated {
                diags
                    .push(Diagnostic::error("unterminated block comment", span).with_code("E0758"));
            }
            // A plain block comment is dropped.
            doc_style?;
        }
        TokenKind::Unknown => {
            let c = text[lo as usize..].chars().next().unwrap_or('\0');
            let shown = if c.is_ascii_graphic() {
                c.to_string()
            } else {
                format!("\\u{{{:x}}}", c as u32)
            };
            diags.push(Diagnostic::error(
                format!("unknown start of token: {shown}"),
                span,
            ));
            return None;
        }
        TokenKind::UnknownPrefix => {
            let prefix = &text[lo as usize..hi as usize];
            diags.push(
                Diagnostic::error(format!("prefix `{prefix}` is unknown"), span)
                    .with_label_message("unknown prefix")
                    .with_note("prefixed identifiers and literals are reserved since Rust 2021"),
            );
            kind =
                Keyword::from_bytes(prefix.as_bytes()).map_or(TokenKind::Ident, TokenKind::Keyword);
        }
        TokenKind::RawIdent => {
            diags.push(Diagnostic::unsupported("raw identifiers", span));
            kind = TokenKind::Ident;
        }
        TokenKind::RawLifetime => {
            diags.push(Diagnostic::unsupported("raw lifetimes", span));
            kind = TokenKind::Lifetime {
                starts_with_number: false,
            };
        }
        TokenKind::Lifetime {
            starts_with_number: true,
        } => {
            diags.push(Diagnostic::error(
                "lifetimes cannot start with a number",
                span,
            ));
        }
        TokenKind::Literal { kind: lit, .. } => {
            let unterminated = match lit {
                LiteralKind::Str { terminated: false } => {
                    Some(("unterminated double quote string", "E0765"))
                }
                LiteralKind::Char { terminated: false } => {
                    Some(("unterminated character literal", "E0762"))
                }
                LiteralKind::Byte { terminated: false } => {
                    Some(("unterminated byte constant", "E0763"))
                }
                LiteralKind::ByteStr { terminated: false } => {
                    Some(("unterminated double quote byte string", "E0766"))
                }
                LiteralKind::CStr { terminated: false } => Some(("unterminated C string", "E0767")),
                LiteralKind::RawStr { terminated: false }
                | LiteralKind::RawByteStr { terminated: false }
                | LiteralKind::RawCStr { terminated: false } => {
                    Some(("unterminated raw string", "E0748"))
                }
                _ => None,
            };
            if let Some((msg, code)) = unterminated {
                diags.push(Diagnostic::error(msg, span).with_code(code));
            }
        }
        _ => {}
    }
    Some(kind)
}

#[cfg(test)]
mod tests;

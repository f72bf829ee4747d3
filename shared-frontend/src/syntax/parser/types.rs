//! Types (`i32`, `a::B`, `[T; N]`, `()`, and reported `!`, references, tuples, …) and
//! paths (`a::b::c`, `crate::…`, `self::…`, `super::…`).

use super::{same_kind, Parser};
use crate::syntax::ast::{
    ArenaPath, Ident, PathSegment, PathSegmentKind, SegmentList, Type, TypeId, TypeKind,
};
use crate::syntax::lexer::{Keyword as Kw, TokenKind as T};

impl<'a> Parser<'a> {
    fn alloc_type(&mut self, kind: TypeKind, lo: u32) -> TypeId {
        let span = self.rel_from(lo);
        self.arena.alloc_type(Type { kind, span })
    }

    pub(super) fn parse_type(&mut self) -> TypeId {
        self.parse_type_with(true)
    }

    /// The type after `as`: a `<` after it is left alone (the caller reports it as rustc
    /// does: "`<` is interpreted as a start of generic arguments").
    pub(super) fn parse_cast_type(&mut self) -> TypeId {
        self.parse_type_with(false)
    }

    fn parse_type_with(&mut self, generics: bool) -> TypeId {
        let lo = self.lo();
        if !self.enter() {
            if matches!(self.peek(), T::OpenBracket | T::OpenParen) {
                self.skip_token_tree();
            } else {
                self.bump();
            }
            return self.alloc_type(TypeKind::Error, lo);
        }
        let t = self.parse_type_inner(generics);
        self.leave();
        t
    }

    fn parse_type_inner(&mut self, generics: bool) -> TypeId {
        let t = self.tok();
        let lo = t.lo;
        match t.kind {
            T::Ident
            | T::PathSep
            | T::Keyword(Kw::Crate | Kw::SelfValue | Kw::Super | Kw::SelfType) => {
                let path = self.parse_path();
                if generics && self.at(T::Lt) {
                    let glo = self.lo();
                    self.skip_angle_brackets();
                    self.unsupported("generic arguments", glo, self.prev_hi());
                    return self.alloc_type(TypeKind::Error, lo);
                }
                if path.is_empty() {
                    return self.alloc_type(TypeKind::Error, lo);
                }
                self.alloc_type(TypeKind::Path(path), lo)
            }
            T::OpenBracket => {
                self.bump();
                let elem = self.parse_type();
                if self.eat(T::Semi) {
                    let len = self.parse_expr();
                    self.expect_closing(T::CloseBracket, lo);
                    self.alloc_type(TypeKind::Array(elem, len), lo)
                } else {
                    self.expect_closing(T::CloseBracket, lo);
                    self.unsupported("slice types `[T]`", lo, self.prev_hi());
                    self.alloc_type(TypeKind::Error, lo)
                }
            }
            T::OpenParen => {
                self.bump();
                if self.eat(T::CloseParen) {
                    return self.alloc_type(TypeKind::Unit, lo);
                }
                let inner = self.parse_type();
                if self.eat(T::CloseParen) {
                    // A parenthesized type is the type itself.
                    return inner;
                }
                self.skip_balanced_until(&[T::Semi, T::OpenBrace]);
                self.eat(T::CloseParen);
                self.unsupported("tuple types", lo, self.prev_hi());
                self.alloc_type(TypeKind::Error, lo)
            }
            T::Bang => {
                self.bump();
                self.unsupported("the never type `!`", t.lo, t.hi);
                self.alloc_type(TypeKind::Never, lo)
            }
            T::And | T::AndAnd | T::Star => {
                self.bump();
                if self.at(T::Lifetime {
                    starts_with_number: false,
                }) {
                    self.bump();
                }
                if !self.eat_kw(Kw::Mut) {
                    self.eat_kw(Kw::Const);
                }
                self.parse_type();
                let what = if same_kind(t.kind, T::Star) {
                    "raw pointers"
                } else {
                    "references"
                };
                self.unsupported(what, lo, self.prev_hi());
                self.alloc_type(TypeKind::Error, lo)
            }
            T::Underscore => {
                self.bump();
                self.unsupported("the inferred type `_`", t.lo, t.hi);
                self.alloc_type(TypeKind::Error, lo)
            }
            T::Keyword(Kw::Fn | Kw::Unsafe | Kw::Extern) => {
                while !matches!(self.peek(), T::OpenParen | T::Eof | T::Semi | T::OpenBrace) {
                    self.bump();
                }
                if self.at(T::OpenParen) {
                    self.skip_token_tree();
                }
                if self.eat(T::RArrow) {
                    self.parse_type();
                }
                self.unsupported("function pointer types", lo, self.prev_hi());
                self.alloc_type(TypeKind::Error, lo)
            }
            T::Keyword(Kw::Impl | Kw::Dyn) => {
                self.bump();
                if matches!(self.peek(), T::Ident | T::PathSep) {
                    self.parse_path();
                    if self.at(T::Lt) {
                        self.skip_angle_brackets();
                    }
                }
                self.unsupported("trait object and `impl Trait` types", lo, self.prev_hi());
                self.alloc_type(TypeKind::Error, lo)
            }
            _ => {
                let msg = format!("expected type, found {}", self.found());
                self.error_here(msg);
                let span = self.rel(lo, lo);
                self.arena.alloc_type(Type {
                    kind: TypeKind::Error,
                    span,
                })
            }
        }
    }

    /// `a::b::c`; generic arguments (`a::<T>`) are reported and skipped. The segments go
    /// straight into the item's arena (a path holds no other path, so they are
    /// contiguous); a plain one-segment path is not put there.
    #[inline]
    pub(super) fn parse_path(&mut self) -> ArenaPath {
        // Most paths are one name with nothing after it that continues a path: it is
        // read here, as `parse_path_segments` would read it, without the segment list.
        if self.at(T::Ident) && !self.nth_is(1, T::PathSep) {
            let name = self.bump_ident();
            return self.name_path(name);
        }
        self.parse_path_segments()
    }

    /// `parse_path` for any path: the segments go into the item's arena and come back
    /// out of it for a plain one-segment path (a keyword: `self`, `crate`, `super`).
    fn parse_path_segments(&mut self) -> ArenaPath {
        let lo = self.lo();
        if self.at(T::PathSep) {
            let t = self.tok();
            self.bump();
            self.unsupported("paths starting with `::`", t.lo, t.hi);
        }
        let start = self.arena.segments.len();
        loop {
            let t = self.tok();
            let kind = match t.kind {
                T::Ident => {
                    let id = self.bump_ident();
                    PathSegmentKind::Name(id.name)
                }
                T::Keyword(Kw::Crate) => {
                    self.bump_over();
                    PathSegmentKind::Crate
                }
                T::Keyword(Kw::SelfValue) => {
                    self.bump_over();
                    PathSegmentKind::SelfMod
                }
                T::Keyword(Kw::Super) => {
                    self.bump_over();
                    PathSegmentKind::Super
                }
                T::Keyword(Kw::SelfType) => {
                    self.bump();
                    self.unsupported("`Self`", t.lo, t.hi);
                    PathSegmentKind::Name(self.intern("Self"))
                }
                _ => {
                    self.expected_ident_error();
                    break;
                }
            };
            let span = self.rel(t.lo, t.hi);
            self.arena.segments.push(PathSegment { kind, span });
            if !self.at(T::PathSep) {
                break;
            }
            if self.nth_is(1, T::Lt) {
                self.bump();
                let glo = self.lo();
                self.skip_angle_brackets();
                self.unsupported("generic arguments", glo, self.prev_hi());
                if !self.eat(T::PathSep) {
                    break;
                }
                continue;
            }
            self.bump_over();
        }
        let span = self.rel_from(lo);
        match self.arena.segments[start..] {
            [seg] if seg.span == span => {
                self.arena.segments.truncate(start);
                ArenaPath::One(seg)
            }
            ref segs => ArenaPath::Many(
                SegmentList {
                    start: start as u32,
                    len: segs.len() as u32,
                },
                span,
            ),
        }
    }

    /// The one-segment path `name`, at `name`'s span.
    pub(super) fn name_path(&mut self, name: Ident) -> ArenaPath {
        ArenaPath::One(PathSegment {
            kind: PathSegmentKind::Name(name.name),
            span: name.span,
        })
    }

    /// At `<`: skips to just after the matching `>` (counting `<<`, `>>` as two); stops at
    /// `;`, `{`, `}` or the end of the file if they never match.
    pub(super) fn skip_angle_brackets(&mut self) {
        let mut depth: i64 = 0;
        loop {
            match self.peek() {
                T::Lt => depth += 1,
                T::Shl => depth += 2,
                T::Gt | T::Ge => depth -= 1,
                T::Shr | T::ShrEq => depth -= 2,
                T::Semi | T::OpenBrace | T::CloseBrace | T::Eof => return,
                T::OpenParen | T::OpenBracket => {
                    self.skip_token_tree();
                    continue;
                }
                _ => {}
            }
            self.bump();
            if depth <= 0 {
                return;
            }
        }
    }
}

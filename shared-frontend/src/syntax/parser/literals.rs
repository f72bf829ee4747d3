//! Literals: integer values and suffixes, string escapes, and `println!` with its format
//! string split into [`FmtPiece`]s. Everything rustc rejects here gets rustc's message;
//! literals outside the subset (floats, chars, strings outside `println!`) are reported.

use super::Parser;
use crate::diag::Diagnostic;
use crate::limits::MAX_LITERAL_LEN;
use crate::span::Span;
use crate::syntax::ast::{
    ExprId, ExprKind, ExprList, FmtPiece, IntLit, IntSuffix, LitValue, PieceList,
};
use crate::syntax::lexer::{literal_suffix_start, Base, LiteralKind, TokenKind as T};

impl<'a> Parser<'a> {
    /// At a literal token.
    pub(super) fn parse_literal_expr(&mut self) -> ExprId {
        let t = self.tok();
        let span = self.rel(t.lo, t.hi);
        let T::Literal { kind } = t.kind else {
            self.bump();
            return self.alloc_expr(ExprKind::Missing, span);
        };
        self.bump_over();
        // The common plain decimal literal without suffix: its value, as `int_literal`
        // would compute it, with no text slicing or suffix matching. A literal made only
        // of digits has no suffix (a suffix starts with a letter or `_`).
        if let LiteralKind::Int {
            base: Base::Decimal,
            empty_int: false,
        } = kind
        {
            let digits = &self.text.as_bytes()[t.lo as usize..t.hi as usize];
            let value = if digits.len() <= 19 {
                decimal_digits_value(digits)
            } else {
                None
            };
            if let Some(value) = value {
                let lit = IntLit {
                    value: Some(LitValue(u128::from(value))),
                    suffix: None,
                    hex: false,
                };
                return self.alloc_int(lit, span);
            }
        }
        let text = self.tok_text(t);
        let suffix_start = suffix_start(kind, text);
        if let LiteralKind::Int {
            base,
            empty_int: false,
        } = kind
        {
            if let Some(lit) = common_int_literal(text.as_bytes(), base, suffix_start as usize) {
                return self.alloc_int(lit, span);
            }
        }
        let what = match kind {
            LiteralKind::Int { base, empty_int } => {
                let lit = self.int_literal(text, base, empty_int, suffix_start as usize, t.lo);
                return match lit {
                    Some(lit) => self.alloc_int(lit, span),
                    None => self.alloc_expr(ExprKind::Missing, span),
                };
            }
            LiteralKind::Float { .. } => "floating-point literals",
            LiteralKind::Char { .. } => "character literals",
            LiteralKind::Byte { .. } => "byte literals",
            LiteralKind::Str { .. } | LiteralKind::RawStr { .. } => {
                "string literals outside `println!`"
            }
            LiteralKind::ByteStr { .. } | LiteralKind::RawByteStr { .. } => "byte string literals",
            LiteralKind::CStr { .. } | LiteralKind::RawCStr { .. } => "C string literals",
        };
        if !is_unterminated(kind) {
            self.unsupported(what, t.lo, t.hi);
        }
        self.alloc_expr(ExprKind::Missing, span)
    }

    /// The value and suffix of an integer literal; `None` when it is not an integer
    /// after all (a float suffix) — reported.
    fn int_literal(
        &mut self,
        text: &'a str,
        base: Base,
        empty_int: bool,
        suffix_start: usize,
        lo: u32,
    ) -> Option<IntLit> {
        let hi = lo + text.len() as u32;
        if text.len() > MAX_LITERAL_LEN {
            self.report(Diagnostic::error(
                format!(
                    "integer literal is longer than the implementation limit of \
                     {MAX_LITERAL_LEN} bytes (MAX_LITERAL_LEN)"
                ),
                Span::new(lo, hi),
            ));
        }
        let (digits, suffix) = text.split_at(suffix_start.min(text.len()));
        let suffix = match suffix {
            "" => None,
            "i32" => Some(IntSuffix::I32),
            "i64" => Some(IntSuffix::I64),
            "u64" => Some(IntSuffix::U64),
            "usize" => Some(IntSuffix::Usize),
            "i8" | "i16" | "i128" | "isize" | "u8" | "u16" | "u32" | "u128" => {
                Some(IntSuffix::Other(self.intern(suffix)))
            }
            "f32" | "f64" if base == Base::Decimal => {
                self.unsupported("floating-point literals", lo, hi);
                return None;
            }
            _ => {
                let slo = lo + suffix_start as u32;
                let msg = match suffix.strip_prefix(['i', 'u']) {
                    Some(w) if !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit()) => {
                        format!("invalid width `{w}` for integer literal")
                    }
                    _ => format!("invalid suffix `{suffix}` for number literal"),
                };
                self.report(Diagnostic::error(msg, Span::new(slo, hi)).with_note(
                    "the suffix must be one of the numeric types (`u32`, `isize`, `f32`, etc.)",
                ));
                None
            }
        };
        let hex = base == Base::Hexadecimal;
        if empty_int {
            self.report(
                Diagnostic::error("no valid digits found for number", Span::new(lo, hi))
                    .with_code("E0768"),
            );
            return Some(IntLit {
                value: Some(LitValue(0)),
                suffix,
                hex,
            });
        }
        let body = if base == Base::Decimal {
            digits
        } else {
            &digits[2..]
        };
        // Up to 19 plain decimal digits cannot overflow a u64: no checked u128 steps.
        if base == Base::Decimal && body.len() <= 19 && body.bytes().all(|b| b.is_ascii_digit()) {
            let value = body.bytes().fold(0u64, |v, b| v * 10 + u64::from(b - b'0'));
            return Some(IntLit {
                value: Some(LitValue(u128::from(value))),
                suffix,
                hex,
            });
        }
        let radix = base.radix();
        let mut value: Option<u128> = Some(0);
        let mut bad_digit = false;
        for c in body.chars() {
            if c == '_' {
                continue;
            }
            let Some(d) = c.to_digit(radix) else {
                bad_digit = true;
                continue;
            };
            value = value
                .and_then(|v| v.checked_mul(radix as u128))
                .and_then(|v| v.checked_add(d as u128));
        }
        if bad_digit {
            self.report(Diagnostic::error(
                format!("invalid digit for a base {radix} literal"),
                Span::new(lo, hi),
            ));
            value = Some(0);
        }
        Some(IntLit {
            value: value.map(LitValue),
            suffix,
            hex,
        })
    }

    /// At `println` `!` `(`: the whole macro call. `lo` is the start of `println`.
    /// The pieces are the format string's only: the newline `println!` adds is implied
    /// (`println!()` has no pieces).
    pub(super) fn parse_println(&mut self, lo: u32) -> ExprId {
        self.bump(); // `!`
        let open = self.tok();
        let close = match open.kind {
            T::OpenParen => T::CloseParen,
            T::OpenBracket => T::CloseBracket,
            _ => T::CloseBrace,
        };
        self.bump();
        // The format string's pieces go straight into the arena, before any argument's
        // (which may hold a `println!` of its own).
        let pieces_start = self.arena.fmt_pieces.len();
        if self.eat(close) {
            let span = self.rel_from(lo);
            let (pieces, args) = (PieceList::default(), ExprList::default());
            return self.alloc_expr(ExprKind::Println { pieces, args }, span);
        }
        let fmt_tok = self.tok();
        let mut holes = None;
        match fmt_tok.kind {
            T::Literal {
                kind:
                    kind @ (LiteralKind::Str { terminated: true }
                    | LiteralKind::RawStr { terminated: true }),
            } if literal_suffix_start(self.tok_text(fmt_tok)) == fmt_tok.hi - fmt_tok.lo => {
                self.bump();
                let text = self.tok_text(fmt_tok);
                let decoded = if matches!(kind, LiteralKind::Str { .. }) {
                    self.unescape_str(&text[1..text.len() - 1], fmt_tok.lo + 1)
                } else {
                    raw_str_contents(text).to_string()
                };
                let mut pieces = std::mem::take(&mut self.arena.fmt_pieces);
                holes = self.split_format(&decoded, &mut pieces, fmt_tok.lo, fmt_tok.hi);
                self.arena.fmt_pieces = pieces;
            }
            _ => {
                // Parse it anyway, for recovery.
                let e = self.parse_expr();
                let s = self.arena[e].span.shift(self.base);
                if !matches!(self.arena[e].kind, ExprKind::Missing) {
                    self.report(Diagnostic::error(
                        "format argument must be a string literal",
                        s,
                    ));
                }
            }
        }
        let pieces = PieceList {
            start: pieces_start as u32,
            len: (self.arena.fmt_pieces.len() - pieces_start) as u32,
        };
        let mark = self.scratch_exprs.len();
        loop {
            if self.eat(close) {
                break;
            }
            if self.at(T::Eof) {
                self.unclosed_delimiter_error(open.lo);
                break;
            }
            if !self.eat(T::Comma) {
                let msg = format!("expected `,`, found {}", self.found());
                self.error_here(msg);
                self.skip_balanced_until(&[T::Comma, T::Semi]);
                if !self.at(T::Comma) {
                    self.eat(close);
                    break;
                }
                continue;
            }
            if self.eat(close) {
                break;
            }
            let arg_lo = self.lo();
            let e = self.parse_expr();
            if let ExprKind::Assign(..) = self.arena[e].kind {
                self.unsupported("named arguments in `println!`", arg_lo, self.prev_hi());
            }
            self.scratch_exprs.push(e);
        }
        let args = self.take_scratch_exprs(mark);
        if let Some(holes) = holes {
            self.check_format_args(holes, args, fmt_tok.lo, fmt_tok.hi);
        }
        let span = self.rel_from(lo);
        self.alloc_expr(ExprKind::Println { pieces, args }, span)
    }

    /// rustc's count check between `{}` holes and arguments.
    fn check_format_args(&mut self, holes: usize, args: ExprList, lo: u32, hi: u32) {
        let n = args.len();
        if holes > n {
            let pl = if holes == 1 { "" } else { "s" };
            let given = match n {
                0 => "no arguments were given".to_string(),
                1 => "there is 1 argument".to_string(),
                _ => format!("there are {n} arguments"),
            };
            self.report(Diagnostic::error(
                format!("{holes} positional argument{pl} in format string, but {given}"),
                Span::new(lo, hi),
            ));
        } else if n > holes {
            let first = self.arena[self.arena[args][holes]].span.shift(self.base);
            let msg = if n - holes == 1 {
                "argument never used"
            } else {
                "multiple unused formatting arguments"
            };
            self.report(
                Diagnostic::error(msg, first)
                    .with_secondary(Span::new(lo, hi), "formatting specifier missing"),
            );
        }
    }

    /// Splits a decoded format string into pieces. Returns the number of `{}` holes, or
    /// `None` when the string had an error or an unsupported specification (then the
    /// argument count is not checked).
    fn split_format(
        &mut self,
        s: &str,
        pieces: &mut Vec<FmtPiece>,
        lo: u32,
        hi: u32,
    ) -> Option<usize> {
        let span = Span::new(lo, hi);
        let mut text = String::new();
        let mut holes = 0usize;
        let mut ok = true;
        let mut chars = s.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            match c {
                '{' => {
                    if let Some(&(_, '{')) = chars.peek() {
                        chars.next();
                        text.push('{');
                        continue;
                    }
                    if let Some(&(_, '}')) = chars.peek() {
                        chars.next();
                        if !text.is_empty() {
                            pieces.push(FmtPiece::Text(std::mem::take(&mut text)));
                        }
                        pieces.push(FmtPiece::Hole);
                        holes += 1;
                        continue;
                    }
                    match s[i..].find('}') {
                        Some(end) => {
                            let spec = &s[i..i + end + 1];
                            self.report(
                                Diagnostic::unsupported(
                                    format!("format specification `{spec}`"),
                                    span,
                                )
                                .with_note("only `{}` holes are supported"),
                            );
                            ok = false;
                            for (j, _) in chars.by_ref() {
                                if j >= i + end {
                                    break;
                                }
                            }
                        }
                        None => {
                            self.report(
                                Diagnostic::error(
                                    "invalid format string: expected `}` but string was terminated",
                                    span,
                                )
                                .with_note(
                                    "if you intended to print `{`, you can escape it using `{{`",
                                ),
                            );
                            ok = false;
                            break;
                        }
                    }
                }
                '}' => {
                    if let Some(&(_, '}')) = chars.peek() {
                        chars.next();
                        text.push('}');
                        continue;
                    }
                    self.report(
                        Diagnostic::error("invalid format string: unmatched `}` found", span)
                            .with_note(
                                "if you intended to print `}`, you can escape it using `}}`",
                            ),
                    );
                    ok = false;
                }
                c => text.push(c),
            }
        }
        if !text.is_empty() {
            pieces.push(FmtPiece::Text(text));
        }
        ok.then_some(holes)
    }

    /// Decodes the escapes of a string literal's contents (starting at absolute offset
    /// `lo`), reporting malformed ones as rustc does.
    fn unescape_str(&mut self, s: &str, lo: u32) -> String {
        let mut out = String::with_capacity(s.len());
        let bytes = s.as_bytes();
        let mut i = 0;
        while i < s.len() {
            let c = s[i..].chars().next().unwrap_or('\0');
            if c == '\r' && bytes.get(i + 1) != Some(&b'\n') {
                self.report(Diagnostic::error(
                    "bare CR not allowed in string, use `\\r` instead",
                    Span::new(lo + i as u32, lo + i as u32 + 1),
                ));
                i += 1;
                continue;
            }
            if c != '\\' {
                out.push(c);
                i += c.len_utf8();
                continue;
            }
            let esc_lo = lo + i as u32;
            let Some(&e) = bytes.get(i + 1) else {
                i += 1;
                continue;
            };
            i += 2;
            match e {
                b'n' => out.push('\n'),
                b't' => out.push('\t'),
                b'r' => out.push('\r'),
                b'\\' => out.push('\\'),
                b'0' => out.push('\0'),
                b'\'' => out.push('\''),
                b'"' => out.push('"'),
                b'\n' | b'\r' => {
                    // Line continuation: skip the newline and the whitespace after it.
                    while i < s.len() && matches!(bytes[i], b' ' | b'\t' | b'\n' | b'\r') {
                        i += 1;
                    }
                }
                b'x' => {
                    let hex = s
                        .get(i..i + 2)
                        .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()));
                    match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                        Some(v) if v <= 0x7F => {
                            out.push(v as char);
                            i += 2;
                        }
                        Some(_) => {
                            i += 2;
                            self.report(
                                Diagnostic::error(
                                    "out of range hex escape",
                                    Span::new(esc_lo, lo + i as u32),
                                )
                                .with_label_message(
                                    "must be a character in the range [\\x00-\\x7f]",
                                ),
                            );
                        }
                        None => {
                            self.report(Diagnostic::error(
                                "numeric character escape is too short",
                                Span::new(esc_lo, lo + i as u32),
                            ));
                        }
                    }
                }
                b'u' => {
                    if bytes.get(i) != Some(&b'{') {
                        self.report(Diagnostic::error(
                            "incorrect unicode escape sequence",
                            Span::new(esc_lo, lo + i as u32),
                        ));
                        continue;
                    }
                    let Some(close) = s[i..].find('}') else {
                        self.report(Diagnostic::error(
                            "unterminated unicode escape",
                            Span::new(esc_lo, lo + s.len() as u32),
                        ));
                        i = s.len();
                        continue;
                    };
                    let digits: String =
                        s[i + 1..i + close].chars().filter(|&c| c != '_').collect();
                    i += close + 1;
                    let value = if digits.is_empty() || digits.len() > 6 {
                        None
                    } else {
                        u32::from_str_radix(&digits, 16).ok()
                    };
                    match value.and_then(char::from_u32) {
                        Some(ch) => out.push(ch),
                        None => self.report(Diagnostic::error(
                            "invalid unicode character escape",
                            Span::new(esc_lo, lo + i as u32),
                        )),
                    }
                }
                _ => {
                    let ch = s[i - 1..].chars().next().unwrap_or('?');
                    i += ch.len_utf8() - 1;
                    let shown: String = ch.escape_default().collect();
                    self.report(Diagnostic::error(
                        format!("unknown character escape: `{shown}`"),
                        Span::new(esc_lo, lo + i as u32),
                    ));
                }
            }
        }
        out
    }
}

/// The contents of a terminated raw string literal `r#"…"#`.
fn raw_str_contents(text: &str) -> &str {
    let hashes = text[1..].bytes().take_while(|&b| b == b'#').count();
    let start = 1 + hashes + 1;
    let end = text.len().saturating_sub(hashes + 1);
    text.get(start..end).unwrap_or("")
}

/// The value of up to 19 decimal digits; `None` if any byte is not a digit (`_`). Checked
/// and valued in one pass.
#[inline(always)]
fn decimal_digits_value(digits: &[u8]) -> Option<u64> {
    let mut value = 0u64;
    for &b in digits {
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        value = value * 10 + u64::from(d);
    }
    Some(value)
}

/// Where the suffix of the literal token `text` of kind `kind` starts (its length when it
/// has none), as [`literal_suffix_start`] finds it. A decimal integer is digits and `_`
/// (the lexer reads a `.` or an exponent as a float) followed by its suffix, so its suffix
/// starts at the first other byte, found without lexing the literal again.
#[inline]
pub(super) fn suffix_start(kind: LiteralKind, text: &str) -> u32 {
    match kind {
        LiteralKind::Int {
            base: Base::Decimal,
            empty_int: false,
        } => text
            .bytes()
            .position(|b| !matches!(b, b'0'..=b'9' | b'_'))
            .unwrap_or(text.len()) as u32,
        _ => literal_suffix_start(text),
    }
}

/// The common well-formed integer literal, valued as [`Parser::int_literal`] would value
/// it: no suffix or `i32`, `i64`, `u64`, `usize`, only digits of its base and `_`, and a
/// value that fits in 64 bits. `None` for anything else, which `int_literal` handles
/// (and reports).
#[inline]
fn common_int_literal(text: &[u8], base: Base, suffix_start: usize) -> Option<IntLit> {
    if text.len() > MAX_LITERAL_LEN {
        return None;
    }
    let (digits, suffix) = text.split_at_checked(suffix_start)?;
    let suffix = match suffix {
        b"" => None,
        b"i32" => Some(IntSuffix::I32),
        b"i64" => Some(IntSuffix::I64),
        b"u64" => Some(IntSuffix::U64),
        b"usize" => Some(IntSuffix::Usize),
        _ => return None,
    };
    let body = match base {
        Base::Decimal => digits,
        _ => digits.get(2..)?,
    };
    let radix = u64::from(base.radix());
    let mut value = 0u64;
    for &b in body {
        let d = match b {
            b'0'..=b'9' => b - b'0',
            b'a'..=b'f' => b - b'a' + 10,
            b'A'..=b'F' => b - b'A' + 10,
            b'_' => continue,
            _ => return None,
        };
        let d = u64::from(d);
        if d >= radix {
            return None;
        }
        value = value.checked_mul(radix)?.checked_add(d)?;
    }
    Some(IntLit {
        value: Some(LitValue(u128::from(value))),
        suffix,
        hex: base == Base::Hexadecimal,
    })
}

/// Unterminated literals were reported by the lexing pass already.
fn is_unterminated(kind: LiteralKind) -> bool {
    matches!(
        kind,
        LiteralKind::Char { terminated: false }
            | LiteralKind::Byte { terminated: false }
            | LiteralKind::Str { terminated: false }
            | LiteralKind::ByteStr { terminated: false }
            | LiteralKind::CStr { terminated: false }
            | LiteralKind::RawStr { terminated: false }
            | LiteralKind::RawByteStr { terminated: false }
            | LiteralKind::RawCStr { terminated: false }
    )
}

//! The lexer: source text to a flat list of tokens, each a kind and a length.
//!
//! Modelled on `rustc_lexer`: no dependencies, no errors. Malformed input is recorded on
//! the token (`terminated: false`, `empty_int: true`, [`TokenKind::Unknown`]) and reported
//! by the parser, which knows the context. Unlike `rustc_lexer`, multi-character
//! punctuation (`::`, `->`, `<<=`, `<-`, …) is glued here, by maximal munch, the way
//! rustc's token stream glues it, and keywords get their own kind.
//!
//! The lexer works on bytes and only decodes a `char` for non-ASCII input; it allocates
//! nothing but the output vector. The lengths of the tokens always sum to the length of
//! the input, and every token is at least one byte long.

/// One token: what it is and how many bytes of the input it covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Token {
    pub kind: TokenKind,
    pub len: u32,
}

/// Whether a doc comment documents the item after it (`///`, `/** */`) or the enclosing
/// item (`//!`, `/*! */`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DocStyle {
    Outer,
    Inner,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Base {
    Binary,
    Octal,
    Decimal,
    Hexadecimal,
}

impl Base {
    pub fn radix(self) -> u32 {
        match self {
            Base::Binary => 2,
            Base::Octal => 8,
            Base::Decimal => 10,
            Base::Hexadecimal => 16,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum LiteralKind {
    /// `12`, `0x1f`, `0b1`, `0o7`; `empty_int` for a prefix without digits (`0x`).
    Int { base: Base, empty_int: bool },
    /// `1.0`, `1e3`, `1.5e-3`; `empty_exponent` for `1e`.
    Float { base: Base, empty_exponent: bool },
    /// `'a'`
    Char { terminated: bool },
    /// `b'a'`
    Byte { terminated: bool },
    /// `"text"`
    Str { terminated: bool },
    /// `b"text"`
    ByteStr { terminated: bool },
    /// `c"text"`
    CStr { terminated: bool },
    /// `r"text"`, `r#"text"#`; `terminated` is false also for a malformed opening.
    RawStr { terminated: bool },
    /// `br"text"`
    RawByteStr { terminated: bool },
    /// `cr"text"`
    RawCStr { terminated: bool },
}

/// Packs a keyword candidate of 1 to 8 bytes into an integer, so that keyword lookup is
/// one integer `match` instead of string comparisons.
const fn pack(text: &[u8]) -> u64 {
    let mut key = 0u64;
    let mut i = 0;
    while i < text.len() {
        key |= (text[i] as u64) << (8 * i);
        i += 1;
    }
    key
}

macro_rules! keywords {
    ($($(#[$doc:meta])* $variant:ident = $text:literal,)*) => {
        /// Rust 2021's strict and reserved keywords. None of them can be an identifier.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum Keyword {
            $($variant,)*
        }

        impl Keyword {
            pub fn as_str(self) -> &'static str {
                match self {
                    $(Keyword::$variant => $text,)*
                }
            }

            /// The keyword spelled `text`, if any.
            pub fn from_bytes(text: &[u8]) -> Option<Keyword> {
                // Keywords are 2 to 8 bytes long; a 0xFF byte (never in UTF-8) could
                // pack to the key of the table's empty slots.
                if text.len() < 2 || text.len() > 8 || text.contains(&0xFF) {
                    return None;
                }
                Keyword::from_packed(pack(text))
            }

            /// The keyword whose bytes, packed by [`pack`], are `key` (a candidate of 2
            /// to 8 bytes).
            #[inline]
            fn from_packed(key: u64) -> Option<Keyword> {
                match Keyword::token_from_packed(key) {
                    TokenKind::Keyword(k) => Some(k),
                    _ => None,
                }
            }

            /// The token an identifier of 2 to 8 bytes (of valid UTF-8, or without a
            /// 0xFF byte), packed by [`pack`] into `key`, is: its keyword or
            /// [`TokenKind::Ident`]. One multiplicative-hash probe and
            /// one comparison choosing between the slot's keyword and `Ident`.
            #[inline(always)]
            fn token_from_packed(key: u64) -> TokenKind {
                const ALL: &[(Keyword, &str)] = &[$((Keyword::$variant, $text),)*];
                // Empty slots hold EMPTY_KEY, which no text of valid UTF-8 packs to (its
                // last byte, 0xFF, is never in UTF-8), and a keyword that is never read.
                // The keyword is kept as itself, not as its token: a token read from
                // the table would be put together again from its bytes.
                const EMPTY_KEY: u64 = 0xFF << 56;
                const TABLE: [(u64, Keyword); 1 << KEYWORD_HASH_BITS] = {
                    let mut table = [(EMPTY_KEY, Keyword::As); 1 << KEYWORD_HASH_BITS];
                    let mut i = 0;
                    while i < ALL.len() {
                        let key = pack(ALL[i].1.as_bytes());
                        let slot = keyword_slot(key);
                        // A collision fails the build: pick another multiplier.
                        assert!(table[slot].0 == EMPTY_KEY, "keyword hash collision");
                        // Identifiers starting with an `IdPlain` letter skip the lookup.
                        assert!(
                            !matches!(byte_class(ALL[i].1.as_bytes()[0]), ByteClass::IdPlain),
                            "a keyword starts with a letter classed as starting none"
                        );
                        table[slot] = (key, ALL[i].0);
                        i += 1;
                    }
                    table
                };
                let (k, keyword) = TABLE[keyword_slot(key)];
                if k == key {
                    TokenKind::Keyword(keyword)
                } else {
                    TokenKind::Ident
                }
            }
        }
    };
}

/// The keyword table has `1 << KEYWORD_HASH_BITS` slots; `KEYWORD_HASH_MUL` maps every
/// keyword to its own slot (checked when the table is built, at compile time).
const KEYWORD_HASH_BITS: u32 = 7;
const KEYWORD_HASH_MUL: u64 = 0x870f_70f8_0d61_7d75;

#[inline]
const fn keyword_slot(key: u64) -> usize {
    (key.wrapping_mul(KEYWORD_HASH_MUL) >> (64 - KEYWORD_HASH_BITS)) as usize
}

keywords! {
    As = "as",
    Break = "break",
    Const = "const",
    Continue = "continue",
    Crate = "crate",
    Else = "else",
    Enum = "enum",
    Extern = "extern",
    False = "false",
    Fn = "fn",
    For = "for",
    If = "if",
    Impl = "impl",
    In = "in",
    Let = "let",
    Loop = "loop",
    Match = "match",
    Mod = "mod",
    Move = "move",
    Mut = "mut",
    Pub = "pub",
    Ref = "ref",
    Return = "return",
    SelfValue = "self",
    SelfType = "Self",
    Static = "static",
    Struct = "struct",
    Super = "super",
    Trait = "trait",
    True = "true",
    Type = "type",
    Unsafe = "unsafe",
    Use = "use",
    Where = "where",
    While = "while",
    Async = "async",
    Await = "await",
    Dyn = "dyn",
    // Reserved for future use.
    Abstract = "abstract",
    Become = "become",
    Box = "box",
    Do = "do",
    Final = "final",
    Macro = "macro",
    Override = "override",
    Priv = "priv",
    Typeof = "typeof",
    Unsized = "unsized",
    Virtual = "virtual",
    Yield = "yield",
    Try = "try",
}

/// Three bytes of content, aligned to 4: a `Token` is 8 bytes and the parser's token 12,
/// and a kind passed in a register is one 32-bit value (a 3-byte one is put together and
/// taken apart with shifts).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(align(4))]
pub enum TokenKind {
    // Trivia.
    /// `// …`, `/// …` (outer doc), `//! …` (inner doc); `//// …` is plain.
    LineComment {
        doc_style: Option<DocStyle>,
    },
    /// `/* … */`, nested; `/** */` outer doc, `/*! */` inner doc, `/**/` and `/*** */`
    /// plain.
    BlockComment {
        doc_style: Option<DocStyle>,
        terminated: bool,
    },
    Whitespace,

    // Names and literals.
    /// An identifier that is not a keyword (`_x`, `café`).
    Ident,
    /// A strict or reserved keyword.
    Keyword(Keyword),
    /// `_`
    Underscore,
    /// `r#ident`
    RawIdent,
    /// `foo#`, `foo"…"`: a prefix reserved since Rust 2021 (the token is the prefix).
    UnknownPrefix,
    /// `'a`; `'1a` has `starts_with_number`.
    Lifetime {
        starts_with_number: bool,
    },
    /// `'r#a`
    RawLifetime,
    /// A literal, its suffix included (`1u8`, `"a"x`). Where the suffix starts is not
    /// kept in the token, which keeps [`Token`] at 8 bytes: [`literal_suffix_start`]
    /// finds it.
    Literal {
        kind: LiteralKind,
    },

    // Punctuation.
    /// `;`
    Semi,
    /// `,`
    Comma,
    /// `.`
    Dot,
    /// `..`
    DotDot,
    /// `...`
    DotDotDot,
    /// `..=`
    DotDotEq,
    /// `(`
    OpenParen,
    /// `)`
    CloseParen,
    /// `{`
    OpenBrace,
    /// `}`
    CloseBrace,
    /// `[`
    OpenBracket,
    /// `]`
    CloseBracket,
    /// `@`
    At,
    /// `#`
    Pound,
    /// `~`
    Tilde,
    /// `?`
    Question,
    /// `:`
    Colon,
    /// `::`
    PathSep,
    /// `$`
    Dollar,
    /// `=`
    Eq,
    /// `==`
    EqEq,
    /// `=>`
    FatArrow,
    /// `!`
    Bang,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `<<`
    Shl,
    /// `<<=`
    ShlEq,
    /// `<-`
    LArrow,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `>>`
    Shr,
    /// `>>=`
    ShrEq,
    /// `-`
    Minus,
    /// `-=`
    MinusEq,
    /// `->`
    RArrow,
    /// `&`
    And,
    /// `&&`
    AndAnd,
    /// `&=`
    AndEq,
    /// `|`
    Or,
    /// `||`
    OrOr,
    /// `|=`
    OrEq,
    /// `+`
    Plus,
    /// `+=`
    PlusEq,
    /// `*`
    Star,
    /// `*=`
    StarEq,
    /// `/`
    Slash,
    /// `/=`
    SlashEq,
    /// `^`
    Caret,
    /// `^=`
    CaretEq,
    /// `%`
    Percent,
    /// `%=`
    PercentEq,

    /// A character that starts no token (`\0`, `€`, a lone `\`). One character long.
    Unknown,
    /// End of input. Never produced by [`tokenize`]; the parser's token list ends with it.
    Eof,
}

impl TokenKind {
    /// Whitespace and comments, doc comments included.
    pub fn is_trivia(self) -> bool {
        matches!(
            self,
            TokenKind::Whitespace | TokenKind::LineComment { .. } | TokenKind::BlockComment { .. }
        )
    }

    /// The doc style of a doc comment; `None` for anything else.
    pub fn doc_style(self) -> Option<DocStyle> {
        match self {
            TokenKind::LineComment { doc_style } | TokenKind::BlockComment { doc_style, .. } => {
                doc_style
            }
            _ => None,
        }
    }

    /// The fixed spelling of a punctuation token or keyword.
    pub fn punct_str(self) -> Option<&'static str> {
        use TokenKind::*;
        Some(match self {
            Keyword(k) => k.as_str(),
            Underscore => "_",
            Semi => ";",
            Comma => ",",
            Dot => ".",
            DotDot => "..",
            DotDotDot => "...",
            DotDotEq => "..=",
            OpenParen => "(",
            CloseParen => ")",
            OpenBrace => "{",
            CloseBrace => "}",
            OpenBracket => "[",
            CloseBracket => "]",
            At => "@",
            Pound => "#",
            Tilde => "~",
            Question => "?",
            Colon => ":",
            PathSep => "::",
            Dollar => "$",
            Eq => "=",
            EqEq => "==",
            FatArrow => "=>",
            Bang => "!",
            Ne => "!=",
            Lt => "<",
            Le => "<=",
            Shl => "<<",
            ShlEq => "<<=",
            LArrow => "<-",
            Gt => ">",
            Ge => ">=",
            Shr => ">>",
            ShrEq => ">>=",
            Minus => "-",
            MinusEq => "-=",
            RArrow => "->",
            And => "&",
            AndAnd => "&&",
            AndEq => "&=",
            Or => "|",
            OrOr => "||",
            OrEq => "|=",
            Plus => "+",
            PlusEq => "+=",
            Star => "*",
            StarEq => "*=",
            Slash => "/",
            SlashEq => "/=",
            Caret => "^",
            CaretEq => "^=",
            Percent => "%",
            PercentEq => "%=",
            _ => return None,
        })
    }
}

/// Splits `text` into tokens, trivia included. Never fails.
pub fn tokenize(text: &str) -> Vec<Token> {
    let mut cursor = Cursor::new(text);
    // Dense code, whitespace tokens included, averages a little over 2 bytes per token
    // (2.2 in the benchmark's synthetic program): this avoids most regrowth.
    let mut tokens = Vec::with_capacity(text.len() / 2 + 1);
    while let Some(t) = cursor.next_token() {
        tokens.push(t);
    }
    tokens
}

/// Lexes `text` for the parser: calls `emit(kind, lo, hi, common)` for every token but
/// whitespace, in order, with its byte range. `common` is true for the tokens read by the
/// fast loop: identifiers, keywords, `_`, punctuation and literals made only of decimal
/// digits (and an ASCII suffix), none of them an error; every other token (comments,
/// other literals, lifetimes, unknown characters, …) is read by [`Cursor::token_kind`]
/// and has `common` false. The tokens are exactly those of [`tokenize`], whitespace
/// dropped.
///
/// The loop keeps its position in a register: one 256-entry class table dispatches
/// on the first byte, identifiers, whitespace and digits are read by tight loops and
/// keywords by one hash probe ([`Keyword::token_from_packed`]); the rest goes to an
/// out-of-line call. A token that starts at least [`FAST_SLACK`] bytes before the end
/// is read without bounds checks on the bytes the fast loop looks at within that
/// distance (the gap before it, its first 9 bytes, an operator's second and third
/// bytes, a keyword candidate's 8 bytes); the tokens after that, by the checked loop.
#[inline(always)]
pub fn lex_significant(text: &str, emit: impl FnMut(TokenKind, u32, u32, bool)) {
    struct Calls<F>(F);
    impl<F: FnMut(TokenKind, u32, u32, bool)> TokenSink for Calls<F> {
        fn reserve(&mut self, _: usize) {}
        unsafe fn emit(&mut self, kind: TokenKind, lo: u32, hi: u32, common: bool) {
            (self.0)(kind, lo, hi, common)
        }
    }
    lex_significant_into(text, &mut Calls(emit));
}

/// What [`lex_significant_into`] gives its tokens to: room is made for a number of
/// tokens at a time, so that a sink writing them into a vector needs no capacity test
/// for each.
pub trait TokenSink {
    /// Makes room for `n` more tokens.
    fn reserve(&mut self, n: usize);

    /// One token, as [`lex_significant`]'s `emit` gets it.
    ///
    /// # Safety
    ///
    /// Since the last call of [`TokenSink::reserve`], with `n`, this is called at most
    /// `n` times.
    unsafe fn emit(&mut self, kind: TokenKind, lo: u32, hi: u32, common: bool);
}

/// How many bytes [`lex_significant_into`] reads between two calls of
/// [`TokenSink::reserve`] (every token is at least one byte long).
pub const RESERVE_WINDOW: usize = 256;

/// [`lex_significant`], giving the tokens to `sink`.
#[inline(always)]
pub fn lex_significant_into(text: &str, sink: &mut impl TokenSink) {
    use TokenKind::*;
    let bytes = text.as_bytes();
    let len = bytes.len();
    // Tokens starting at or before `safe` have FAST_SLACK bytes from their first one on.
    let safe = len.saturating_sub(FAST_SLACK);
    // The byte at `i`, for `i < lo + FAST_SLACK` where `lo <= safe`.
    // SAFETY (every use): `lo <= safe = len - FAST_SLACK` and `i < lo + FAST_SLACK`, so
    // `i < len`.
    let at = |i: usize| -> u8 {
        debug_assert!(i < len);
        unsafe { *bytes.get_unchecked(i) }
    };
    let mut pos = 0usize;
    'windows: while pos < safe {
        // Each round of the inner loop starts before `window_end`, moves past at least
        // one byte and emits at most one token: at most `window_end - pos` tokens until
        // the next reservation.
        let window_end = safe.min(pos + RESERVE_WINDOW);
        sink.reserve(window_end - pos);
        while pos < window_end {
            // The gap before the token: none, one space, or a run read by the checked skip.
            let mut b = at(pos);
            if b <= b' ' {
                // `pos < safe`: the byte after it is within the slack.
                if b == b' ' && at(pos + 1) > b' ' {
                    pos += 1;
                    b = at(pos);
                } else {
                    pos = ascii_whitespace_end(bytes, pos);
                    if pos > safe {
                        break 'windows;
                    }
                    b = at(pos);
                }
            }
            // Here `pos <= safe`.
            let lo = pos;
            let next = pos + 1;
            let class = BYTE_CLASS[b as usize];
            let common = match class {
                ByteClass::Whitespace => {
                    // Not reached (the gap took ASCII whitespace), kept for a total match.
                    pos = ascii_whitespace_end(bytes, next);
                    continue;
                }
                ByteClass::IdPlain
                | ByteClass::IdStart
                | ByteClass::LowerR
                | ByteClass::LowerB
                | ByteClass::LowerC => {
                    let (end, special) = ascii_id_end_fast(bytes, next, at);
                    // Prefixes (`r#`, `b'`, `br"`, unknown ones) and non-ASCII identifiers.
                    if special {
                        None
                    } else if matches!(class, ByteClass::IdPlain) {
                        Some((Ident, end))
                    } else {
                        let n = end - lo;
                        let kind = if (2..=8).contains(&n) {
                            debug_assert!(lo + 8 <= len);
                            // SAFETY: `lo <= safe`, so `lo + 8 <= len`.
                            let word = u64::from_le(unsafe {
                                bytes.as_ptr().add(lo).cast::<u64>().read_unaligned()
                            });
                            self::Keyword::token_from_packed(word & (u64::MAX >> (64 - 8 * n)))
                        } else if n == 1 && b == b'_' {
                            Underscore
                        } else {
                            Ident
                        };
                        Some((kind, end))
                    }
                }
                ByteClass::Digit => {
                    plain_decimal_end(bytes, lo, next).map(|(end, _)| (PLAIN_DECIMAL, end))
                }
                // Punctuation is emitted here, apart from identifiers and numbers: one
                // emitting path for all kinds costs a merge of their kinds. Its second and
                // third bytes are within the slack.
                _ => match punctuation(class, next, |n| at(next + n)) {
                    Some((kind, end)) => {
                        pos = end;
                        // SAFETY: one token in this round (see the reservation).
                        unsafe { sink.emit(kind, lo as u32, end as u32, true) };
                        continue;
                    }
                    None => None,
                },
            };
            match common {
                Some((kind, end)) => {
                    pos = end;
                    // SAFETY: one token in this round (see the reservation).
                    unsafe { sink.emit(kind, lo as u32, end as u32, true) };
                }
                None => {
                    let (kind, end) = general_token(text, lo);
                    pos = end;
                    if !matches!(kind, Whitespace) {
                        // SAFETY: as above.
                        unsafe { sink.emit(kind, lo as u32, end as u32, false) };
                    }
                }
            }
        }
    }
    // The rest: at most one token for each byte left.
    sink.reserve(len.saturating_sub(pos));
    lex_significant_checked(text, pos, &mut |kind, lo, hi, common| {
        // SAFETY: room was made for a token per byte left, and every token is at least one
        // byte long.
        unsafe { sink.emit(kind, lo, hi, common) }
    });
}

/// How many bytes from a token's first one [`lex_significant`]'s fast loop reads without
/// bounds checks.
const FAST_SLACK: usize = 16;

/// [`ascii_id_end`] from `i`, the byte after an identifier's first one, where the 8 bytes
/// from `i` can be read by `at` without a bounds check (`i + 8` within the fast loop's
/// slack); and whether the byte that ends the identifier is one of
/// [`AFTER_IDENT_SPECIAL`] (false at the end of the text).
#[inline(always)]
fn ascii_id_end_fast(bytes: &[u8], i: usize, at: impl Fn(usize) -> u8) -> (usize, bool) {
    for k in 0..8 {
        let b = at(i + k);
        if !ID_CONTINUE[b as usize] {
            return (i + k, ID_SPECIAL[b as usize]);
        }
    }
    ascii_id_end_rest(bytes, i + 8)
}

/// [`ascii_id_end_fast`] past its first 8 bytes: identifiers of 9 bytes or more.
#[inline(always)]
fn ascii_id_end_rest(bytes: &[u8], i: usize) -> (usize, bool) {
    let end = ascii_id_end(bytes, i);
    let special = bytes.get(end).is_some_and(|&b| ID_SPECIAL[b as usize]);
    (end, special)
}

/// Crate-private copies of [`ASCII_ID_CONTINUE`] and [`AFTER_IDENT_SPECIAL`] for the fast
/// loop, addressed directly rather than through the public items.
static ID_CONTINUE: [bool; 256] = ASCII_ID_CONTINUE_TABLE;
static ID_SPECIAL: [bool; 256] = AFTER_IDENT_SPECIAL_TABLE;

/// The loop of [`lex_significant`] from `pos` (where a token starts, or whitespace) to the
/// end of `text`, every read bounds-checked: the last [`FAST_SLACK`] bytes, and all of a
/// text shorter than that.
#[inline(always)]
fn lex_significant_checked(
    text: &str,
    mut pos: usize,
    emit: &mut impl FnMut(TokenKind, u32, u32, bool),
) {
    use TokenKind::*;
    let bytes = text.as_bytes();
    loop {
        // Whitespace between tokens, without a dispatch; the byte after it is read once.
        let Some(&b) = bytes.get(pos) else {
            break;
        };
        let b = if b > b' ' {
            b
        } else {
            pos = skip_ascii_whitespace(bytes, pos);
            match bytes.get(pos) {
                Some(&b) => b,
                None => break,
            }
        };
        let lo = pos;
        let next = pos + 1;
        let class = BYTE_CLASS[b as usize];
        let common = match class {
            ByteClass::Whitespace => {
                pos = ascii_whitespace_end(bytes, next);
                continue;
            }
            ByteClass::IdPlain
            | ByteClass::IdStart
            | ByteClass::LowerR
            | ByteClass::LowerB
            | ByteClass::LowerC => {
                let end = ascii_id_end(bytes, next);
                // Prefixes (`r#`, `b'`, `br"`, unknown ones) and non-ASCII identifiers.
                if end < bytes.len() && AFTER_IDENT_SPECIAL[bytes[end] as usize] {
                    None
                } else if matches!(class, ByteClass::IdPlain) {
                    Some((Ident, end))
                } else {
                    Some((keyword_or_ident(bytes, lo, end - lo), end))
                }
            }
            ByteClass::Digit => {
                plain_decimal_end(bytes, lo, next).map(|(end, _)| (PLAIN_DECIMAL, end))
            }
            // Punctuation is emitted here, apart from identifiers and numbers: one
            // emitting path for all kinds costs a merge of their kinds.
            _ => match punctuation(class, next, |n| bytes.get(next + n).copied().unwrap_or(0)) {
                Some((kind, end)) => {
                    pos = end;
                    emit(kind, lo as u32, end as u32, true);
                    continue;
                }
                None => None,
            },
        };
        match common {
            Some((kind, end)) => {
                pos = end;
                emit(kind, lo as u32, end as u32, true);
            }
            None => {
                let (kind, end) = general_token(text, lo);
                pos = end;
                if !matches!(kind, Whitespace) {
                    emit(kind, lo as u32, end as u32, false);
                }
            }
        }
    }
}

/// The token starting at `pos` in `text` and its end, by [`Cursor::token_kind`]; an
/// integer with `_` separators or a base prefix by [`integer_token`], which reads it
/// without the cursor's general number and suffix path.
#[inline(never)]
fn general_token(text: &str, pos: usize) -> (TokenKind, usize) {
    if text.as_bytes()[pos].is_ascii_digit() {
        if let Some(token) = integer_token(text.as_bytes(), pos) {
            return token;
        }
    }
    let mut cursor = Cursor::new(text);
    cursor.pos = pos;
    let kind = cursor.token_kind();
    (kind, cursor.pos)
}

/// The punctuation token whose first byte, of class `class`, is just before `next`
/// (`peek(n)` is the byte at `next + n`, 0 past the end), glued by maximal munch like [`Cursor::token_kind`] does, and its end; `None`
/// for a class that starts no punctuation and for a `/` that starts a comment.
#[inline(always)]
fn punctuation(
    class: ByteClass,
    next: usize,
    peek: impl Fn(usize) -> u8,
) -> Option<(TokenKind, usize)> {
    use TokenKind::*;
    let one = |kind| Some((kind, next));
    let two = |kind| Some((kind, next + 1));
    let three = |kind| Some((kind, next + 2));
    match class {
        ByteClass::Semi => one(Semi),
        ByteClass::Comma => one(Comma),
        ByteClass::OpenParen => one(OpenParen),
        ByteClass::CloseParen => one(CloseParen),
        ByteClass::OpenBrace => one(OpenBrace),
        ByteClass::CloseBrace => one(CloseBrace),
        ByteClass::OpenBracket => one(OpenBracket),
        ByteClass::CloseBracket => one(CloseBracket),
        ByteClass::At => one(At),
        ByteClass::Pound => one(Pound),
        ByteClass::Tilde => one(Tilde),
        ByteClass::Question => one(Question),
        ByteClass::Dollar => one(Dollar),
        ByteClass::Slash => match peek(0) {
            b'/' | b'*' => None,
            b'=' => two(SlashEq),
            _ => one(Slash),
        },
        ByteClass::Dot => match (peek(0), peek(1)) {
            (b'.', b'.') => three(DotDotDot),
            (b'.', b'=') => three(DotDotEq),
            (b'.', _) => two(DotDot),
            _ => one(Dot),
        },
        ByteClass::Colon => match peek(0) {
            b':' => two(PathSep),
            _ => one(Colon),
        },
        ByteClass::Eq => match peek(0) {
            b'=' => two(EqEq),
            b'>' => two(FatArrow),
            _ => one(Eq),
        },
        ByteClass::Bang => match peek(0) {
            b'=' => two(Ne),
            _ => one(Bang),
        },
        ByteClass::Lt => match (peek(0), peek(1)) {
            (b'<', b'=') => three(ShlEq),
            (b'<', _) => two(Shl),
            (b'=', _) => two(Le),
            (b'-', _) => two(LArrow),
            _ => one(Lt),
        },
        ByteClass::Gt => match (peek(0), peek(1)) {
            (b'>', b'=') => three(ShrEq),
            (b'>', _) => two(Shr),
            (b'=', _) => two(Ge),
            _ => one(Gt),
        },
        ByteClass::Minus => match peek(0) {
            b'=' => two(MinusEq),
            b'>' => two(RArrow),
            _ => one(Minus),
        },
        ByteClass::And => match peek(0) {
            b'&' => two(AndAnd),
            b'=' => two(AndEq),
            _ => one(And),
        },
        ByteClass::Or => match peek(0) {
            b'|' => two(OrOr),
            b'=' => two(OrEq),
            _ => one(Or),
        },
        ByteClass::Plus => match peek(0) {
            b'=' => two(PlusEq),
            _ => one(Plus),
        },
        ByteClass::Star => match peek(0) {
            b'=' => two(StarEq),
            _ => one(Star),
        },
        ByteClass::Caret => match peek(0) {
            b'=' => two(CaretEq),
            _ => one(Caret),
        },
        ByteClass::Percent => match peek(0) {
            b'=' => two(PercentEq),
            _ => one(Percent),
        },
        // Every class is named: the dispatch's jump table then covers all of them and
        // needs no range test.
        ByteClass::Whitespace
        | ByteClass::LowerR
        | ByteClass::LowerB
        | ByteClass::LowerC
        | ByteClass::IdPlain
        | ByteClass::IdStart
        | ByteClass::Digit
        | ByteClass::Quote
        | ByteClass::DoubleQuote
        | ByteClass::NonAscii
        | ByteClass::Other => None,
    }
}

/// Where the suffix starts in `text`, the text of one literal token (its length when
/// it has none): 1 in `1u8`, 3 in `"a"x`, 4 in `0xffusize`.
///
/// The literal is lexed again on its own. That gives the suffix it had in its context:
/// the lexer reads past the end of a token only to decide that the token ends there, and
/// the end of the text decides the same.
pub fn literal_suffix_start(text: &str) -> u32 {
    let mut cursor = Cursor::new(text);
    if cursor.at_end() {
        return 0;
    }
    cursor.token_kind();
    cursor.suffix_start
}

/// Reads tokens one at a time from the front of a text.
pub struct Cursor<'a> {
    text: &'a str,
    bytes: &'a [u8],
    pos: usize,
    /// After a literal token: where its suffix starts, relative to the token.
    suffix_start: u32,
}

const fn is_ascii_id_start(b: u8) -> bool {
    b.is_ascii_alphabetic() || b == b'_'
}

const fn is_ascii_id_continue(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// `is_ascii_id_continue` as a table, for the identifier loop (and for scanners that
/// skip identifiers without lexing them).
pub static ASCII_ID_CONTINUE: [bool; 256] = ASCII_ID_CONTINUE_TABLE;

const ASCII_ID_CONTINUE_TABLE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = is_ascii_id_continue(b as u8);
        b += 1;
    }
    table
};

/// The bytes after an identifier's ASCII bytes that need a closer look: `#`, `"` and `'`
/// (an unknown prefix) and non-ASCII bytes (the identifier may go on).
pub static AFTER_IDENT_SPECIAL: [bool; 256] = AFTER_IDENT_SPECIAL_TABLE;

const AFTER_IDENT_SPECIAL_TABLE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = b >= 0x80 || b == b'#' as usize || b == b'"' as usize || b == b'\'' as usize;
        b += 1;
    }
    table
};

/// What a token starting with a given byte can be: the first dispatch of
/// [`Cursor::token_kind`], one class per arm.
#[derive(Clone, Copy)]
enum ByteClass {
    Whitespace,
    Slash,
    LowerR,
    LowerB,
    LowerC,
    /// An ASCII letter that starts no keyword.
    IdPlain,
    /// Any other ASCII letter or `_`.
    IdStart,
    Digit,
    Quote,
    DoubleQuote,
    Semi,
    Comma,
    Dot,
    OpenParen,
    CloseParen,
    OpenBrace,
    CloseBrace,
    OpenBracket,
    CloseBracket,
    At,
    Pound,
    Tilde,
    Question,
    Dollar,
    Colon,
    Eq,
    Bang,
    Lt,
    Gt,
    Minus,
    And,
    Or,
    Plus,
    Star,
    Caret,
    Percent,
    NonAscii,
    /// An ASCII byte that starts no token.
    Other,
}

const fn byte_class(b: u8) -> ByteClass {
    match b {
        b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => ByteClass::Whitespace,
        b'/' => ByteClass::Slash,
        b'r' => ByteClass::LowerR,
        b'b' => ByteClass::LowerB,
        b'c' => ByteClass::LowerC,
        b'g' | b'h' | b'j' | b'k' | b'n' | b'q' | b'x' | b'z' | b'A'..=b'R' | b'T'..=b'Z' => {
            ByteClass::IdPlain
        }
        b'a'..=b'z' | b'A'..=b'Z' | b'_' => ByteClass::IdStart,
        b'0'..=b'9' => ByteClass::Digit,
        b'\'' => ByteClass::Quote,
        b'"' => ByteClass::DoubleQuote,
        b';' => ByteClass::Semi,
        b',' => ByteClass::Comma,
        b'.' => ByteClass::Dot,
        b'(' => ByteClass::OpenParen,
        b')' => ByteClass::CloseParen,
        b'{' => ByteClass::OpenBrace,
        b'}' => ByteClass::CloseBrace,
        b'[' => ByteClass::OpenBracket,
        b']' => ByteClass::CloseBracket,
        b'@' => ByteClass::At,
        b'#' => ByteClass::Pound,
        b'~' => ByteClass::Tilde,
        b'?' => ByteClass::Question,
        b'$' => ByteClass::Dollar,
        b':' => ByteClass::Colon,
        b'=' => ByteClass::Eq,
        b'!' => ByteClass::Bang,
        b'<' => ByteClass::Lt,
        b'>' => ByteClass::Gt,
        b'-' => ByteClass::Minus,
        b'&' => ByteClass::And,
        b'|' => ByteClass::Or,
        b'+' => ByteClass::Plus,
        b'*' => ByteClass::Star,
        b'^' => ByteClass::Caret,
        b'%' => ByteClass::Percent,
        0x80.. => ByteClass::NonAscii,
        _ => ByteClass::Other,
    }
}

/// [`byte_class`] of every byte.
static BYTE_CLASS: [ByteClass; 256] = {
    let mut table = [ByteClass::Other; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = byte_class(b as u8);
        b += 1;
    }
    table
};

/// Rust's whitespace (Unicode `Pattern_White_Space`).
fn is_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{000B}'
            | '\u{000C}'
            | '\r'
            | ' '
            | '\u{0085}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{2028}'
            | '\u{2029}'
    )
}

/// Approximates `XID_Start` for non-ASCII characters without a Unicode table.
fn is_id_start_char(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

/// Approximates `XID_Continue` for non-ASCII characters without a Unicode table.
fn is_id_continue_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl<'a> Cursor<'a> {
    pub fn new(text: &'a str) -> Cursor<'a> {
        Cursor {
            text,
            bytes: text.as_bytes(),
            pos: 0,
            suffix_start: 0,
        }
    }

    /// Byte offset of the next token.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to byte offset `pos`, for a caller that moved past some tokens by itself:
    /// `pos` must be where a token of the text starts, or its end, for the tokens read
    /// after it to be the text's.
    #[inline]
    pub fn set_pos(&mut self, pos: usize) {
        debug_assert!(
            self.text.is_char_boundary(pos),
            "{pos} is inside a character"
        );
        self.pos = pos;
    }

    /// The byte `n` positions ahead, or 0 past the end (callers that care about NUL bytes
    /// compare positions with the length).
    #[inline]
    fn peek(&self, n: usize) -> u8 {
        match self.bytes.get(self.pos + n) {
            Some(&b) => b,
            None => 0,
        }
    }

    /// Whether the whole text has been read.
    #[inline]
    pub fn at_end(&self) -> bool {
        self.pos >= self.bytes.len()
    }

    /// The character at byte offset `at` (which must be a char boundary), if any.
    fn char_at(&self, at: usize) -> Option<char> {
        self.text.get(at..).and_then(|s| s.chars().next())
    }

    /// Whether an identifier starts at byte offset `at`.
    fn id_start_at(&self, at: usize) -> bool {
        match self.bytes.get(at) {
            None => false,
            Some(&b) if b < 0x80 => is_ascii_id_start(b),
            Some(_) => self.char_at(at).is_some_and(is_id_start_char),
        }
    }

    #[inline(always)]
    fn eat_id_continue(&mut self) {
        self.eat_ascii_id_continue();
        let bytes = self.bytes;
        if self.pos < bytes.len() && bytes[self.pos] >= 0x80 {
            self.eat_id_continue_unicode();
        }
    }

    /// Moves past ASCII identifier bytes.
    #[inline(always)]
    fn eat_ascii_id_continue(&mut self) {
        self.pos = ascii_id_end(self.bytes, self.pos);
    }

    #[cold]
    fn eat_id_continue_unicode(&mut self) {
        loop {
            match self.bytes.get(self.pos) {
                Some(&b) if b < 0x80 && is_ascii_id_continue(b) => self.pos += 1,
                Some(&b) if b < 0x80 => return,
                Some(_) => match self.char_at(self.pos) {
                    Some(c) if is_id_continue_char(c) => self.pos += c.len_utf8(),
                    _ => return,
                },
                None => return,
            }
        }
    }

    /// Skips ASCII whitespace, for callers that drop whitespace tokens anyway.
    #[inline]
    pub fn skip_ascii_whitespace(&mut self) {
        self.pos = skip_ascii_whitespace(self.bytes, self.pos);
    }

    /// Reads the next token; `None` at the end of the text.
    #[inline]
    pub fn next_token(&mut self) -> Option<Token> {
        if self.at_end() {
            return None;
        }
        let start = self.pos;
        let kind = self.token_kind();
        debug_assert!(self.pos > start);
        Some(Token {
            kind,
            len: (self.pos - start) as u32,
        })
    }

    /// Reads the next token (the text must not be at its end) and returns its kind; its
    /// length is how far [`Cursor::pos`] moved, always at least one byte. Always inlined:
    /// its callers are the token loops (`tokenize`, the parser's), and a call per token
    /// costs about a quarter more instructions (857 instead of 670 per line for `tokenize`).
    #[inline(always)]
    pub fn token_kind(&mut self) -> TokenKind {
        use TokenKind::*;
        let b = self.bytes[self.pos];
        let start = self.pos;
        self.pos += 1;
        // One table load and one jump table instead of a tree of byte comparisons.
        match BYTE_CLASS[b as usize] {
            ByteClass::Whitespace => {
                self.eat_whitespace();
                Whitespace
            }
            ByteClass::Slash => match self.peek(0) {
                b'/' => self.line_comment(),
                b'*' => self.block_comment(),
                b'=' => self.glue(SlashEq),
                _ => Slash,
            },
            ByteClass::LowerR => match (self.peek(0), self.peek(1)) {
                (b'#', _) if self.id_start_at(self.pos + 1) => {
                    self.pos += 1;
                    self.eat_id_continue();
                    RawIdent
                }
                (b'#', _) | (b'"', _) => {
                    let terminated = self.raw_string();
                    self.literal(LiteralKind::RawStr { terminated }, start)
                }
                _ => self.ascii_ident(start, true),
            },
            ByteClass::LowerB => match (self.peek(0), self.peek(1)) {
                (b'\'', _) => {
                    self.pos += 1;
                    let terminated = self.single_quoted_string();
                    self.literal(LiteralKind::Byte { terminated }, start)
                }
                (b'"', _) => {
                    self.pos += 1;
                    let terminated = self.double_quoted_string();
                    self.literal(LiteralKind::ByteStr { terminated }, start)
                }
                (b'r', b'"') | (b'r', b'#') => {
                    self.pos += 1;
                    let terminated = self.raw_string();
                    self.literal(LiteralKind::RawByteStr { terminated }, start)
                }
                _ => self.ascii_ident(start, true),
            },
            ByteClass::LowerC => match (self.peek(0), self.peek(1)) {
                (b'"', _) => {
                    self.pos += 1;
                    let terminated = self.double_quoted_string();
                    self.literal(LiteralKind::CStr { terminated }, start)
                }
                (b'r', b'"') | (b'r', b'#') => {
                    self.pos += 1;
                    let terminated = self.raw_string();
                    self.literal(LiteralKind::RawCStr { terminated }, start)
                }
                _ => self.ascii_ident(start, true),
            },
            ByteClass::IdPlain => self.ascii_ident(start, false),
            ByteClass::IdStart => self.ascii_ident(start, true),
            ByteClass::Digit => {
                if let Some(kind) = self.plain_decimal(start) {
                    return kind;
                }
                let kind = self.number(b);
                self.literal(kind, start)
            }
            ByteClass::Quote => self.lifetime_or_char(start),
            ByteClass::DoubleQuote => {
                let terminated = self.double_quoted_string();
                self.literal(LiteralKind::Str { terminated }, start)
            }
            ByteClass::Semi => Semi,
            ByteClass::Comma => Comma,
            ByteClass::Dot => match (self.peek(0), self.peek(1)) {
                (b'.', b'.') => self.glue2(DotDotDot),
                (b'.', b'=') => self.glue2(DotDotEq),
                (b'.', _) => self.glue(DotDot),
                _ => Dot,
            },
            ByteClass::OpenParen => OpenParen,
            ByteClass::CloseParen => CloseParen,
            ByteClass::OpenBrace => OpenBrace,
            ByteClass::CloseBrace => CloseBrace,
            ByteClass::OpenBracket => OpenBracket,
            ByteClass::CloseBracket => CloseBracket,
            ByteClass::At => At,
            ByteClass::Pound => Pound,
            ByteClass::Tilde => Tilde,
            ByteClass::Question => Question,
            ByteClass::Dollar => Dollar,
            ByteClass::Colon => match self.peek(0) {
                b':' => self.glue(PathSep),
                _ => Colon,
            },
            ByteClass::Eq => match self.peek(0) {
                b'=' => self.glue(EqEq),
                b'>' => self.glue(FatArrow),
                _ => Eq,
            },
            ByteClass::Bang => match self.peek(0) {
                b'=' => self.glue(Ne),
                _ => Bang,
            },
            ByteClass::Lt => match (self.peek(0), self.peek(1)) {
                (b'<', b'=') => self.glue2(ShlEq),
                (b'<', _) => self.glue(Shl),
                (b'=', _) => self.glue(Le),
                (b'-', _) => self.glue(LArrow),
                _ => Lt,
            },
            ByteClass::Gt => match (self.peek(0), self.peek(1)) {
                (b'>', b'=') => self.glue2(ShrEq),
                (b'>', _) => self.glue(Shr),
                (b'=', _) => self.glue(Ge),
                _ => Gt,
            },
            ByteClass::Minus => match self.peek(0) {
                b'=' => self.glue(MinusEq),
                b'>' => self.glue(RArrow),
                _ => Minus,
            },
            ByteClass::And => match self.peek(0) {
                b'&' => self.glue(AndAnd),
                b'=' => self.glue(AndEq),
                _ => And,
            },
            ByteClass::Or => match self.peek(0) {
                b'|' => self.glue(OrOr),
                b'=' => self.glue(OrEq),
                _ => Or,
            },
            ByteClass::Plus => self.maybe_eq(Plus, PlusEq),
            ByteClass::Star => self.maybe_eq(Star, StarEq),
            ByteClass::Caret => self.maybe_eq(Caret, CaretEq),
            ByteClass::Percent => self.maybe_eq(Percent, PercentEq),
            ByteClass::NonAscii => {
                // Non-ASCII: decode the whole character.
                self.pos = start;
                let c = self.char_at(start).unwrap_or('\u{FFFD}');
                self.pos += c.len_utf8();
                if is_whitespace(c) || (c == '\u{FEFF}' && start == 0) {
                    self.eat_whitespace();
                    Whitespace
                } else if is_id_start_char(c) {
                    self.ident_or_unknown_prefix(start)
                } else {
                    Unknown
                }
            }
            ByteClass::Other => Unknown,
        }
    }

    #[inline]
    fn glue(&mut self, kind: TokenKind) -> TokenKind {
        self.pos += 1;
        kind
    }

    #[inline]
    fn glue2(&mut self, kind: TokenKind) -> TokenKind {
        self.pos += 2;
        kind
    }

    #[inline]
    fn maybe_eq(&mut self, single: TokenKind, with_eq: TokenKind) -> TokenKind {
        if self.peek(0) == b'=' {
            self.glue(with_eq)
        } else {
            single
        }
    }

    #[inline]
    fn eat_whitespace(&mut self) {
        let bytes = self.bytes;
        let i = ascii_whitespace_end(bytes, self.pos);
        self.pos = i;
        if i < bytes.len() && bytes[i] >= 0x80 {
            self.eat_whitespace_unicode();
        }
    }

    #[cold]
    fn eat_whitespace_unicode(&mut self) {
        loop {
            match self.bytes.get(self.pos) {
                Some(b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C) => self.pos += 1,
                Some(&b) if b >= 0x80 => match self.char_at(self.pos) {
                    Some(c) if is_whitespace(c) => self.pos += c.len_utf8(),
                    _ => return,
                },
                _ => return,
            }
        }
    }

    fn line_comment(&mut self) -> TokenKind {
        // At the second `/`.
        self.pos += 1;
        let doc_style = match self.peek(0) {
            b'!' if !self.at_end() => Some(DocStyle::Inner),
            b'/' if self.peek(1) != b'/' => Some(DocStyle::Outer),
            _ => None,
        };
        match memchr_newline(&self.bytes[self.pos..]) {
            Some(i) => self.pos += i,
            None => self.pos = self.bytes.len(),
        }
        TokenKind::LineComment { doc_style }
    }

    fn block_comment(&mut self) -> TokenKind {
        // At the `*`.
        self.pos += 1;
        let doc_style = match self.peek(0) {
            b'!' if !self.at_end() => Some(DocStyle::Inner),
            b'*' if !matches!(self.peek(1), b'*' | b'/') => Some(DocStyle::Outer),
            _ => None,
        };
        let mut depth = 1usize;
        let bytes = self.bytes;
        let mut i = self.pos;
        while i < bytes.len() {
            match bytes[i] {
                b'/' if bytes.get(i + 1) == Some(&b'*') => {
                    depth += 1;
                    i += 2;
                }
                b'*' if bytes.get(i + 1) == Some(&b'/') => {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                }
                _ => i += 1,
            }
        }
        self.pos = i.min(bytes.len());
        TokenKind::BlockComment {
            doc_style,
            terminated: depth == 0,
        }
    }

    /// An identifier or keyword whose first byte, at `start`, is ASCII (the cursor after
    /// it); `keywords` is false for a first letter that starts no keyword
    /// ([`ByteClass::IdPlain`]). The rare continuations (a non-ASCII character, an unknown
    /// prefix) are found by one table test on the byte after the ASCII bytes and left to
    /// [`Cursor::ident_or_unknown_prefix`].
    #[inline(always)]
    fn ascii_ident(&mut self, start: usize, keywords: bool) -> TokenKind {
        self.eat_ascii_id_continue();
        let bytes = self.bytes;
        if let Some(&next) = bytes.get(self.pos) {
            if AFTER_IDENT_SPECIAL[next as usize] {
                return self.ident_or_unknown_prefix(start);
            }
        }
        let len = self.pos - start;
        if !keywords {
            // No keyword starts with this letter, and `_` is not one of them.
            return TokenKind::Ident;
        }
        self.keyword_or_ident(start, len)
    }

    /// After an identifier of `len` bytes at `start`: its keyword, `_`, or `Ident`.
    #[inline(always)]
    fn keyword_or_ident(&self, start: usize, len: usize) -> TokenKind {
        keyword_or_ident(self.bytes, start, len)
    }

    /// An identifier, keyword or unknown prefix starting at `start`, the cursor after its
    /// first character.
    #[inline(never)]
    fn ident_or_unknown_prefix(&mut self, start: usize) -> TokenKind {
        self.eat_id_continue();
        match self.peek(0) {
            b'#' | b'"' | b'\'' if !self.at_end() => TokenKind::UnknownPrefix,
            _ => self.keyword_or_ident(start, self.pos - start),
        }
    }

    fn literal(&mut self, kind: LiteralKind, start: usize) -> TokenKind {
        let terminated = !matches!(
            kind,
            LiteralKind::Char { terminated: false }
                | LiteralKind::Byte { terminated: false }
                | LiteralKind::Str { terminated: false }
                | LiteralKind::ByteStr { terminated: false }
                | LiteralKind::CStr { terminated: false }
                | LiteralKind::RawStr { terminated: false }
                | LiteralKind::RawByteStr { terminated: false }
                | LiteralKind::RawCStr { terminated: false }
        );
        self.suffix_start = (self.pos - start) as u32;
        if terminated && self.id_start_at(self.pos) {
            self.pos += self.char_at(self.pos).map_or(1, char::len_utf8);
            self.eat_id_continue();
        }
        TokenKind::Literal { kind }
    }

    /// After the first digit of a number: the common literal made only of decimal digits
    /// (see [`plain_decimal_end`]); `None` (nothing consumed) for anything else.
    #[inline(always)]
    fn plain_decimal(&mut self, start: usize) -> Option<TokenKind> {
        let (end, digits_end) = plain_decimal_end(self.bytes, start, self.pos)?;
        self.pos = end;
        self.suffix_start = (digits_end - start) as u32;
        Some(PLAIN_DECIMAL)
    }

    fn eat_decimal_digits(&mut self) -> bool {
        let mut has_digits = false;
        loop {
            match self.peek(0) {
                b'_' => self.pos += 1,
                b'0'..=b'9' => {
                    has_digits = true;
                    self.pos += 1;
                }
                _ => return has_digits,
            }
        }
    }

    fn eat_hexadecimal_digits(&mut self) -> bool {
        let mut has_digits = false;
        loop {
            match self.peek(0) {
                b'_' => self.pos += 1,
                b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' => {
                    has_digits = true;
                    self.pos += 1;
                }
                _ => return has_digits,
            }
        }
    }

    fn eat_float_exponent(&mut self) -> bool {
        if matches!(self.peek(0), b'-' | b'+') {
            self.pos += 1;
        }
        self.eat_decimal_digits()
    }

    fn number(&mut self, first_digit: u8) -> LiteralKind {
        let mut base = Base::Decimal;
        if first_digit == b'0' {
            let prefixed = match self.peek(0) {
                b'b' => Some(Base::Binary),
                b'o' => Some(Base::Octal),
                b'x' => Some(Base::Hexadecimal),
                _ => None,
            };
            match prefixed {
                Some(b) => {
                    base = b;
                    self.pos += 1;
                    let has_digits = if b == Base::Hexadecimal {
                        self.eat_hexadecimal_digits()
                    } else {
                        // Like rustc_lexer: eat all decimal digits, the parser reports
                        // those invalid for the base.
                        self.eat_decimal_digits()
                    };
                    if !has_digits {
                        return LiteralKind::Int {
                            base,
                            empty_int: true,
                        };
                    }
                }
                None => match self.peek(0) {
                    b'0'..=b'9' | b'_' => {
                        self.eat_decimal_digits();
                    }
                    b'.' | b'e' | b'E' => {}
                    _ => {
                        return LiteralKind::Int {
                            base,
                            empty_int: false,
                        }
                    }
                },
            }
        } else {
            self.eat_decimal_digits();
        }

        match self.peek(0) {
            // `1..2` and `1.foo` are not floats.
            b'.' if self.peek(1) != b'.' && !self.id_start_at(self.pos + 1) => {
                self.pos += 1;
                let mut empty_exponent = false;
                if self.peek(0).is_ascii_digit() {
                    self.eat_decimal_digits();
                    if matches!(self.peek(0), b'e' | b'E') {
                        self.pos += 1;
                        empty_exponent = !self.eat_float_exponent();
                    }
                }
                LiteralKind::Float {
                    base,
                    empty_exponent,
                }
            }
            b'e' | b'E' => {
                self.pos += 1;
                let empty_exponent = !self.eat_float_exponent();
                LiteralKind::Float {
                    base,
                    empty_exponent,
                }
            }
            _ => LiteralKind::Int {
                base,
                empty_int: false,
            },
        }
    }

    /// After the opening `'` of a char or byte literal; true when a closing `'` was
    /// found.
    fn single_quoted_string(&mut self) -> bool {
        // A one-character literal.
        if let Some(c) = self.char_at(self.pos) {
            if c != '\\' && self.bytes.get(self.pos + c.len_utf8()) == Some(&b'\'') {
                self.pos += c.len_utf8() + 1;
                return true;
            }
        }
        loop {
            match self.bytes.get(self.pos) {
                None => return false,
                Some(b'\'') => {
                    self.pos += 1;
                    return true;
                }
                // Probably a comment, which should not be part of the error.
                Some(b'/') => return false,
                Some(b'\n') if self.peek(1) != b'\'' => return false,
                Some(b'\\') => {
                    self.pos += 1;
                    self.bump_char();
                }
                Some(_) => self.bump_char(),
            }
        }
    }

    /// Moves past one character (nothing at the end).
    fn bump_char(&mut self) {
        if let Some(&b) = self.bytes.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
            } else {
                self.pos += self.char_at(self.pos).map_or(1, char::len_utf8);
            }
        }
    }

    /// After the opening `"`; true when the closing `"` was found.
    fn double_quoted_string(&mut self) -> bool {
        let bytes = self.bytes;
        let mut i = self.pos;
        while i < bytes.len() {
            match bytes[i] {
                b'"' => {
                    self.pos = i + 1;
                    return true;
                }
                b'\\' if matches!(bytes.get(i + 1), Some(b'\\' | b'"')) => i += 2,
                _ => i += 1,
            }
        }
        self.pos = bytes.len();
        false
    }

    /// At the `#`s or `"` after the `r` of a raw string; true when well formed and
    /// terminated.
    fn raw_string(&mut self) -> bool {
        let mut hashes = 0usize;
        while self.peek(0) == b'#' && !self.at_end() {
            hashes += 1;
            self.pos += 1;
        }
        if self.peek(0) != b'"' || self.at_end() || hashes > 255 {
            return false;
        }
        self.pos += 1;
        let bytes = self.bytes;
        let mut i = self.pos;
        while i < bytes.len() {
            if bytes[i] == b'"' {
                let closing = bytes[i + 1..]
                    .iter()
                    .take(hashes)
                    .take_while(|&&b| b == b'#');
                if closing.count() == hashes {
                    self.pos = i + 1 + hashes;
                    return true;
                }
            }
            i += 1;
        }
        self.pos = bytes.len();
        false
    }

    fn lifetime_or_char(&mut self, start: usize) -> TokenKind {
        // After the `'`.
        let first = self.char_at(self.pos);
        let second_is_quote =
            first.is_some_and(|c| self.bytes.get(self.pos + c.len_utf8()) == Some(&b'\''));
        let can_be_lifetime =
            !second_is_quote && first.is_some_and(|c| is_id_start_char(c) || c.is_ascii_digit());
        if !can_be_lifetime {
            let terminated = self.single_quoted_string();
            return self.literal(LiteralKind::Char { terminated }, start);
        }
        if self.peek(0) == b'r' && self.peek(1) == b'#' && self.id_start_at(self.pos + 2) {
            self.pos += 2;
            self.eat_id_continue();
            return TokenKind::RawLifetime;
        }
        let starts_with_number = self.peek(0).is_ascii_digit();
        self.bump_char();
        self.eat_id_continue();
        if self.peek(0) == b'\'' && !self.at_end() {
            self.pos += 1;
            return self.literal(LiteralKind::Char { terminated: true }, start);
        }
        TokenKind::Lifetime { starts_with_number }
    }
}

/// The end of the run of ASCII identifier bytes starting at `i` in `bytes`.
#[inline(always)]
fn ascii_id_end(bytes: &[u8], mut i: usize) -> usize {
    // Eight bytes at a time where eight are left: the unrolled tests need no bounds
    // checks.
    loop {
        match bytes.get(i..i + 8) {
            Some(chunk) => {
                let run = chunk
                    .iter()
                    .position(|&b| !ASCII_ID_CONTINUE[b as usize])
                    .unwrap_or(8);
                i += run;
                if run < 8 {
                    return i;
                }
            }
            None => {
                while i < bytes.len() && ASCII_ID_CONTINUE[bytes[i] as usize] {
                    i += 1;
                }
                return i;
            }
        }
    }
}

/// The token the identifier of `len` bytes at `start` in `bytes` is: its keyword, `_`,
/// or `Ident`.
#[inline(always)]
fn keyword_or_ident(bytes: &[u8], start: usize, len: usize) -> TokenKind {
    if (2..=8).contains(&len) {
        // Pack the candidate with one load where 8 bytes are available.
        let key = match bytes.get(start..start + 8) {
            Some(word) => {
                let word = u64::from_le_bytes(word.try_into().unwrap_or([0; 8]));
                word & (u64::MAX >> (64 - 8 * len))
            }
            None => pack(&bytes[start..start + len]),
        };
        Keyword::token_from_packed(key)
    } else if len == 1 && bytes[start] == b'_' {
        TokenKind::Underscore
    } else {
        TokenKind::Ident
    }
}

/// The kind of a literal made only of decimal digits, with or without a suffix.
const PLAIN_DECIMAL: TokenKind = TokenKind::Literal {
    kind: LiteralKind::Int {
        base: Base::Decimal,
        empty_int: false,
    },
};

/// For a number whose first digit is at `start` in `bytes` (`next` just after it): the
/// common literal made only of decimal digits, with or without an ASCII suffix, and
/// followed by nothing that could continue it (no `_`, `.`, exponent or base prefix),
/// which [`Cursor::number`] and [`Cursor::literal`] would lex the same way. Its end and
/// where its digits end (its suffix starts); `None` for anything else.
#[inline(always)]
fn plain_decimal_end(bytes: &[u8], start: usize, next: usize) -> Option<(usize, usize)> {
    let mut i = next;
    while i < bytes.len() && bytes[i].is_ascii_digit() {
        i += 1;
    }
    let digits_end = i;
    if let Some(&next) = bytes.get(i) {
        let exponent = matches!(next, b'e' | b'E');
        let base_prefix =
            i == start + 1 && bytes[start] == b'0' && matches!(next, b'b' | b'o' | b'x');
        if next.is_ascii_alphabetic() && !exponent && !base_prefix {
            // An ASCII suffix (`u64`), ended by an ASCII byte.
            i += 1;
            while i < bytes.len() && ASCII_ID_CONTINUE[bytes[i] as usize] {
                i += 1;
            }
            if bytes.get(i).is_some_and(|&b| b >= 0x80) {
                return None;
            }
        } else if next == b'.' || next >= 0x80 || ASCII_ID_CONTINUE[next as usize] {
            return None;
        }
    }
    Some((i, digits_end))
}

/// For a number whose first digit is at `start` in `bytes`, when [`plain_decimal_end`]
/// did not take it: an integer literal with `_` separators or a base prefix (`1_000`,
/// `0x1f_u8`, `0b1010`), with digits after its prefix and an ASCII suffix or none, which
/// [`Cursor::number`] and [`Cursor::literal`] would lex the same way; its kind and end.
/// `None` for anything else (floats, exponents, `0x` without digits, non-ASCII after the
/// literal), which the general path reads.
#[inline(always)]
fn integer_token(bytes: &[u8], start: usize) -> Option<(TokenKind, usize)> {
    let mut i = start + 1;
    let base = match (bytes[start], bytes.get(i)) {
        (b'0', Some(b'x')) => Base::Hexadecimal,
        (b'0', Some(b'o')) => Base::Octal,
        (b'0', Some(b'b')) => Base::Binary,
        _ => Base::Decimal,
    };
    if base != Base::Decimal {
        i += 1;
    }
    // Like the cursor: hexadecimal digits after `0x`, all decimal digits otherwise (the
    // parser reports those invalid for the base).
    let mut has_digits = base == Base::Decimal;
    while let Some(&b) = bytes.get(i) {
        let digit = if base == Base::Hexadecimal {
            b.is_ascii_hexdigit()
        } else {
            b.is_ascii_digit()
        };
        if digit {
            has_digits = true;
        } else if b != b'_' {
            break;
        }
        i += 1;
    }
    if !has_digits {
        return None;
    }
    if let Some(&next) = bytes.get(i) {
        // `.` and an exponent may make a float; the cursor decides.
        if next == b'.'
            || next >= 0x80
            || (base != Base::Hexadecimal && matches!(next, b'e' | b'E'))
        {
            return None;
        }
        if ASCII_ID_CONTINUE[next as usize] {
            // An ASCII suffix (`_` and digits were taken above), ended by an ASCII byte.
            i += 1;
            while i < bytes.len() && ASCII_ID_CONTINUE[bytes[i] as usize] {
                i += 1;
            }
            if bytes.get(i).is_some_and(|&b| b >= 0x80) {
                return None;
            }
        }
    }
    let kind = TokenKind::Literal {
        kind: LiteralKind::Int {
            base,
            empty_int: false,
        },
    };
    Some((kind, i))
}

/// The end of the run of ASCII whitespace starting at `i` in `bytes`, with the two
/// common gaps between tokens tested first: none, and one space before a byte above
/// `' '` (ASCII whitespace is below it).
#[inline(always)]
fn skip_ascii_whitespace(bytes: &[u8], i: usize) -> usize {
    match bytes.get(i) {
        Some(&b) if b > b' ' => i,
        Some(b' ') if bytes.get(i + 1).is_some_and(|&next| next > b' ') => i + 1,
        _ => ascii_whitespace_end(bytes, i),
    }
}

/// The end of the run of ASCII whitespace starting at `i` in `bytes`. Runs of spaces
/// (indentation) are skipped 8 bytes at a time.
#[inline(always)]
fn ascii_whitespace_end(bytes: &[u8], mut i: usize) -> usize {
    const SPACES: u64 = u64::from_le_bytes([b' '; 8]);
    while let Some(&b) = bytes.get(i) {
        if b == b' ' {
            i += 1;
            // A lone space (between tokens on a line) needs no word loop.
            if bytes.get(i) != Some(&b' ') {
                continue;
            }
            // The rest of the run, 8 bytes at a time (byte by byte near the end).
            while let Some(w) = bytes.get(i..i + 8) {
                let w = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
                let diff = w ^ SPACES;
                if diff != 0 {
                    i += (diff.trailing_zeros() / 8) as usize;
                    break;
                }
                i += 8;
            }
        } else if matches!(b, b'\t' | b'\n' | b'\r' | 0x0B | 0x0C) {
            i += 1;
        } else {
            break;
        }
    }
    i
}

fn memchr_newline(bytes: &[u8]) -> Option<usize> {
    bytes.iter().position(|&b| b == b'\n')
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Every literal token of `text`: its text and the suffix start the lexer found in
    /// context.
    fn literals_in_context(text: &str) -> Vec<(&str, u32)> {
        let mut cursor = Cursor::new(text);
        let mut out = Vec::new();
        while !cursor.at_end() {
            let start = cursor.pos();
            if let TokenKind::Literal { .. } = cursor.token_kind() {
                out.push((&text[start..cursor.pos()], cursor.suffix_start));
            }
        }
        out
    }

    #[test]
    fn suffix_start_of_literals() {
        let text = r##"1 1u8 0xffusize 1_000i64 1.5f32 1e3 1e 2.5e-3x 0b102 0x 1..2 1.foo "a"x "a" r#"b"#c 'c'_ b'x'y br"z" c"w"q 'ab' "unterminated"##;
        let found: Vec<_> = literals_in_context(text)
            .into_iter()
            .map(|(t, _)| (t, literal_suffix_start(t)))
            .collect();
        assert_eq!(
            found,
            [
                ("1", 1),
                ("1u8", 1),
                ("0xffusize", 4),
                ("1_000i64", 5),
                ("1.5f32", 3),
                ("1e3", 3),
                ("1e", 2),
                ("2.5e-3x", 6),
                ("0b102", 5),
                ("0x", 2),
                ("1", 1),
                ("2", 1),
                ("1", 1),
                ("\"a\"x", 3),
                ("\"a\"", 3),
                ("r#\"b\"#c", 6),
                ("'c'_", 3),
                ("b'x'y", 4),
                ("br\"z\"", 5),
                ("c\"w\"q", 4),
                ("'ab'", 4),
                ("\"unterminated", 13),
            ]
        );
    }

    /// Identifiers past their ASCII bytes: an unknown prefix, a non-ASCII continuation,
    /// the end of the text, `_`, and keywords by first-letter class.
    #[test]
    fn identifier_endings() {
        let text = "g#x k\"s\" fn'a' xé fé fn# _ _x self gogogogogo Self q";
        let mut cursor = Cursor::new(text);
        let mut found = Vec::new();
        while let Some(t) = cursor.next_token() {
            let start = cursor.pos() - t.len as usize;
            if t.kind != TokenKind::Whitespace {
                found.push((&text[start..cursor.pos()], t.kind));
            }
        }
        use TokenKind::*;
        let string = Literal {
            kind: LiteralKind::Str { terminated: true },
        };
        let char = Literal {
            kind: LiteralKind::Char { terminated: true },
        };
        assert_eq!(
            found,
            [
                ("g", UnknownPrefix),
                ("#", Pound),
                ("x", Ident),
                ("k", UnknownPrefix),
                ("\"s\"", string),
                ("fn", UnknownPrefix),
                ("'a'", char),
                ("xé", Ident),
                ("fé", Ident),
                ("fn", UnknownPrefix),
                ("#", Pound),
                ("_", Underscore),
                ("_x", Ident),
                ("self", Keyword(super::Keyword::SelfValue)),
                ("gogogogogo", Ident),
                ("Self", Keyword(super::Keyword::SelfType)),
                ("q", Ident),
            ]
        );
    }

    /// The tokens of `text` other than whitespace, by the token-by-token [`Cursor`]
    /// (`tokenize`'s loop): the reference for [`lex_significant`].
    fn significant_by_cursor(text: &str) -> Vec<(TokenKind, u32, u32)> {
        let mut cursor = Cursor::new(text);
        let mut out = Vec::new();
        let mut lo = 0;
        while let Some(t) = cursor.next_token() {
            let hi = lo + t.len;
            if t.kind != TokenKind::Whitespace {
                out.push((t.kind, lo, hi));
            }
            lo = hi;
        }
        out
    }

    /// [`lex_significant`] reads the same tokens as the [`Cursor`], and the ones it
    /// calls common are of the kinds that are never a lexical error.
    fn check_significant(text: &str) {
        /// Checks the promise of [`TokenSink::emit`]: no more tokens than reserved.
        struct Counted {
            tokens: Vec<(TokenKind, u32, u32, bool)>,
            room: usize,
        }
        impl TokenSink for Counted {
            fn reserve(&mut self, n: usize) {
                self.room = n;
            }
            unsafe fn emit(&mut self, kind: TokenKind, lo: u32, hi: u32, common: bool) {
                assert!(self.room > 0, "token {kind:?} at {lo}..{hi} without room");
                self.room -= 1;
                self.tokens.push((kind, lo, hi, common));
            }
        }
        let mut sink = Counted {
            tokens: Vec::new(),
            room: 0,
        };
        lex_significant_into(text, &mut sink);
        let fast = sink.tokens;
        let mut by_closure = Vec::new();
        lex_significant(text, |kind, lo, hi, common| {
            by_closure.push((kind, lo, hi, common))
        });
        assert_eq!(fast, by_closure);
        for &(kind, lo, hi, common) in &fast {
            assert!(
                !common
                    || kind == TokenKind::Ident
                    || kind == PLAIN_DECIMAL
                    || kind.punct_str().is_some(),
                "{kind:?} at {lo}..{hi} of {text:?} is not a common kind"
            );
        }
        let fast: Vec<_> = fast.into_iter().map(|(k, lo, hi, _)| (k, lo, hi)).collect();
        assert_eq!(fast, significant_by_cursor(text), "in {text:?}");
    }

    /// Texts that end, or change character kind, just where the fast loop hands over to
    /// the general one or stops looking: after a prefix letter, inside a glued operator,
    /// after digits, at a non-ASCII byte, at the end of the text.
    #[test]
    fn significant_tokens_match_the_cursor_on_edge_cases() {
        let cases = [
            "",
            " ",
            "\n",
            "x",
            "_",
            "__",
            "r",
            "b",
            "c",
            "br",
            "cr",
            "r#",
            "r#x",
            "r#\"a\"#",
            "r\"",
            "b'",
            "b'x'",
            "b\"",
            "c\"",
            "br\"x\"",
            "cr#\"x\"#",
            "k\"s\"",
            "fn#",
            "fn'a'",
            "xé",
            "é",
            "fé",
            "\u{85}x",
            "\u{2028}",
            "\u{FEFF}fn",
            "x\u{FEFF}",
            "\u{200E} ;",
            "\0",
            "\x01",
            "\x7f",
            "€",
            "\\",
            "1",
            "0",
            "01",
            "0x",
            "0b1",
            "0o7",
            "0xff",
            "1u8",
            "1_000",
            "1.",
            "1.5",
            "1..2",
            "1.foo",
            "1e3",
            "1e",
            "1E+",
            "1f32",
            "1é",
            "1u8é",
            "1u8#",
            "12abc_",
            "9'",
            "1\"",
            "/",
            "//",
            "///",
            "//!",
            "/*",
            "/**/",
            "/*/",
            "/=",
            "//\n/",
            ".",
            "..",
            "...",
            "..=",
            ".=",
            ":",
            "::",
            ":::",
            "=",
            "==",
            "=>",
            "!",
            "!=",
            "<",
            "<=",
            "<<",
            "<<=",
            "<-",
            ">",
            ">=",
            ">>",
            ">>=",
            "-",
            "-=",
            "->",
            "&",
            "&&",
            "&=",
            "|",
            "||",
            "|=",
            "+",
            "+=",
            "*",
            "*=",
            "^",
            "^=",
            "%",
            "%=",
            "'",
            "'a",
            "'a'",
            "'1a",
            "'r#a",
            "\"",
            "\"x",
            "fn main() { let x = 1; }",
            "abstract becomes",
            "continue continues selfish Self",
            "a\tb\r\nc\x0b\x0cd",
            // Bytes up to `' '` that are not whitespace, where the loop looks for a gap.
            "\x1f;",
            " \x01 x",
            "x \0",
            "x\x1fy",
            "\x0c\x0b\x00",
            "        x",
            "x        ",
            // Integers beside the plain decimal ones, and what only looks like them.
            "1_000",
            "1_",
            "1__u8",
            "0_usize",
            "00",
            "0_0",
            "0x",
            "0x_",
            "0x_1",
            "0x1f_u8",
            "0xFFi64",
            "0xz",
            "0x1z",
            "0x1é",
            "0x1.5",
            "0x1..2",
            "0x1e5",
            "0b",
            "0b1010i32",
            "0b102",
            "0b1e5",
            "0b1.",
            "0o",
            "0o17_u16 ",
            "0o8",
            "0B1",
            "1_e3",
            "1_.x",
            "1_é",
            "1_u8é",
            "0x1\u{2028}",
        ];
        for text in cases {
            check_significant(text);
        }
        // The same texts, and a few longer tokens, behind and before fillers of every
        // length up to past the fast loop's slack: each token is read by the fast loop
        // and by the checked one, at each distance from the end (a whitespace run, an
        // identifier or an operator ending exactly at the end of the text, a keyword
        // candidate's 8 bytes reaching it, a space run's 8-byte words crossing it).
        let longer = [
            "continue",
            "abstract",
            "override x",
            "a_rather_long_identifier_0123456789",
            "self::x",
            "let mut x = 1;",
            "x\n        ",
            "x\n                   y",
            "0x1f_u8 1_000 12u64",
            "r#abc b\"x\" 'a' // c",
        ];
        for text in cases.iter().chain(&longer) {
            for n in 0..=FAST_SLACK + 10 {
                check_significant(&format!("{}{text}", " ".repeat(n)));
                check_significant(&format!("{}{text}", "x".repeat(n)));
                check_significant(&format!("{};\n{text}", ";".repeat(n)));
                check_significant(&format!("{text}{}", " ".repeat(n)));
                check_significant(&format!("{text}\n{}", " ".repeat(n)));
                check_significant(&format!("{text}{}", "y".repeat(n)));
            }
        }
        check_significant(include_str!("lexer.rs"));
        check_significant(include_str!("parser/exprs.rs"));
    }

    /// The fast loop and the cursor agree on every Rust file of the corpus and of this
    /// crate's tests.
    #[test]
    fn significant_tokens_match_the_cursor_on_the_corpus() {
        fn walk(dir: &std::path::Path, files: &mut Vec<std::path::PathBuf>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for entry in entries.flatten() {
                let path = entry.path();
                if path.is_dir() {
                    walk(&path, files);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    files.push(path);
                }
            }
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut files = Vec::new();
        walk(&root.join("../experiments/corpus"), &mut files);
        walk(&root.join("../experiments/benchmarks"), &mut files);
        walk(&root.join("tests"), &mut files);
        assert!(files.len() > 100, "only {} files found", files.len());
        for path in files {
            let bytes = std::fs::read(&path).unwrap();
            check_significant(&String::from_utf8_lossy(&bytes));
        }
    }

    proptest! {
        /// The fast loop and the token-by-token cursor agree on texts made of fragments
        /// where lexing is delicate.
        #[test]
        fn significant_tokens_match_the_cursor_on_fragments(
            parts in prop::collection::vec(
                prop::sample::select(vec![
                    "1", "0", "9", "_", "e", "E", "+", "-", ".", "x", "b", "o", "u8", "a", "r",
                    "c", "#", "\"", "'", "\\", "/", "*", " ", "\n", "\t", "é", "€", "0x", "f32",
                    "{", "}", "(", ")", ":", "=", "<", ">", "!", "&", "|", "^", "%", "@", "~", "?",
                    "$", ";", ",", "[", "]", "fn", "self", "Self", "r#", "br", "cr", "b'", "//",
                    "/*", "*/", "\u{85}", "\u{2028}", "\u{FEFF}", "\0", "\x7f", "let", "try",
                    "abstract", "continue", "whilex", "          ", "0b", "0o", "f", "F", "A",
                    "i64", "1_000", "0x1f",
                ]),
                0..24,
            )
        ) {
            check_significant(&parts.concat());
        }

        /// … and on arbitrary text.
        #[test]
        fn significant_tokens_match_the_cursor_on_any_text(text in any::<String>()) {
            check_significant(&text);
        }

        /// … and on arbitrary bytes, mostly ASCII, made valid UTF-8.
        #[test]
        fn significant_tokens_match_the_cursor_on_bytes(
            bytes in prop::collection::vec(
                prop_oneof![4 => 0x00u8..0x80, 1 => any::<u8>()],
                0..64,
            )
        ) {
            check_significant(&String::from_utf8_lossy(&bytes));
        }
    }

    proptest! {
        /// A literal lexed on its own has the suffix it had in its context, which is what
        /// lets tokens leave the suffix start out.
        #[test]
        fn literal_alone_has_its_suffix_in_context(
            parts in prop::collection::vec(
                prop::sample::select(vec![
                    "1", "0", "9", "_", "e", "E", "+", "-", ".", "x", "b", "o", "u8", "a", "r",
                    "c", "#", "\"", "'", "\\", "/", "*", " ", "\n", "é", "€", "0x", "f32", "{",
                ]),
                1..16,
            )
        ) {
            let text: String = parts.concat();
            for (token, in_context) in literals_in_context(&text) {
                prop_assert_eq!(literal_suffix_start(token), in_context, "{:?} in {:?}", token, text);
            }
        }
    }
}

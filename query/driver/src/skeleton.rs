//! Item skeletons, and finding an item of a file by its ordinal.
//!
//! Building the item tree and resolving imports read an item's kind, name, visibility and
//! position, `use` trees, inline modules and type aliases (for `Alias::MAX`) — never a
//! function body, a constant's value or a struct's fields. The skeleton keeps exactly
//! what they read, so it can be persisted for every file and a changed body does not
//! change it (only its position can).
//!
//! A file's items can also be found without parsing the file ([`split`]) and parsed one
//! at a time ([`SplitChunk::parse`]), so that an edit inside one item of a huge file
//! parses that item's chunk only; the skeleton is then assembled from the items'
//! ([`assemble`]). The split is used only when every item parses cleanly on its own, and
//! then equals the file's parse (checked by this module's tests, on the corpus and along
//! random edits).

use std::sync::Arc;

use query::{hash_serde, StableHash, StableHasher};
use serde::{Deserialize, Serialize};
use shared_frontend::limits::MAX_MODULE_DEPTH;
use shared_frontend::sema::items::ItemAst;
use shared_frontend::syntax::ast::{
    Arena, ConstDef, ExprId, FnDef, Item, ItemKind, ModDef, SourceFileAst, StructDef, TypeId,
};
use shared_frontend::syntax::lexer::{
    Cursor, DocStyle, Keyword, TokenKind, AFTER_IDENT_SPECIAL, ASCII_ID_CONTINUE,
};

use crate::RillDb;

/// The skeleton of a file's syntax tree, positions kept.
pub fn strip(ast: &SourceFileAst) -> SourceFileAst {
    SourceFileAst {
        items: strip_items(&ast.items, &mut None),
    }
}

/// The skeleton without positions: every item's offset is replaced by its ordinal (see
/// [`item_offsets`]), so an edit that moves items without adding or removing any leaves
/// it unchanged. (Spans inside an item are relative to it already.)
pub fn strip_positionless(ast: &SourceFileAst) -> SourceFileAst {
    SourceFileAst {
        items: strip_items(&ast.items, &mut Some(0)),
    }
}

/// `ordinal`: `Some(next)` to number the items instead of keeping their offsets. The
/// recursion follows inline-module nesting, which the parser bounds.
fn strip_items(items: &[Item], ordinal: &mut Option<u32>) -> Vec<Item> {
    items.iter().map(|i| strip_item(i, ordinal)).collect()
}

fn strip_item(item: &Item, ordinal: &mut Option<u32>) -> Item {
    // Positionless: the ordinal for the offset, and no extent (only diagnostics read it).
    let (offset, span) = match ordinal {
        Some(n) => {
            *n += 1;
            (*n - 1, shared_frontend::span::Span::default())
        }
        None => (item.offset, item.span),
    };
    let kind = match &item.kind {
        ItemKind::Fn(f) => ItemKind::Fn(Arc::new(FnDef {
            name: f.name,
            params: Vec::new(),
            ret: None,
            body: ExprId(0),
            arena: Arena::default(),
        })),
        ItemKind::Const(c) => ItemKind::Const(Arc::new(ConstDef {
            name: c.name,
            ty: TypeId(0),
            value: ExprId(0),
            arena: Arena::default(),
        })),
        ItemKind::Struct(s) => ItemKind::Struct(Arc::new(StructDef {
            name: s.name,
            fields: Vec::new(),
            arena: Arena::default(),
        })),
        ItemKind::Mod(m) => ItemKind::Mod(Arc::new(ModDef {
            name: m.name,
            items: m.items.as_deref().map(|items| strip_items(items, ordinal)),
        })),
        ItemKind::TypeAlias(_) | ItemKind::Use(_) => item.kind.clone(),
    };
    Item {
        offset,
        span,
        vis: item.vis,
        kind,
    }
}

/// Every item of a file in pre-order (an inline module, then its items): the index of an
/// item in this order is its *ordinal*.
fn preorder(ast: &SourceFileAst) -> impl Iterator<Item = &Item> {
    let mut stack: Vec<std::slice::Iter<'_, Item>> = vec![ast.items.iter()];
    std::iter::from_fn(move || loop {
        let item = match stack.last_mut()?.next() {
            Some(item) => item,
            None => {
                stack.pop();
                continue;
            }
        };
        if let ItemKind::Mod(m) = &item.kind {
            if let Some(inner) = &m.items {
                stack.push(inner.iter());
            }
        }
        return Some(item);
    })
}

/// Every item's absolute offset and length, by ordinal (see [`preorder`]).
pub fn item_extents(ast: &SourceFileAst) -> Vec<(u32, u32)> {
    preorder(ast).map(|i| (i.offset, i.span.hi)).collect()
}

/// The syntax of the item with `ordinal` (see [`preorder`]).
pub fn item_by_ordinal(ast: &SourceFileAst, ordinal: u32) -> Option<ItemAst> {
    item_ast_of(preorder(ast).nth(ordinal as usize)?)
}

/// An item's syntax (`None` for a `use` item).
pub fn item_ast_of(item: &Item) -> Option<ItemAst> {
    Some(match &item.kind {
        ItemKind::Fn(d) => ItemAst::Fn(d.clone()),
        ItemKind::Const(d) => ItemAst::Const(d.clone()),
        ItemKind::Struct(d) => ItemAst::Struct(d.clone()),
        ItemKind::TypeAlias(d) => ItemAst::TypeAlias(d.clone()),
        ItemKind::Mod(d) => ItemAst::Mod(d.clone()),
        ItemKind::Use(_) => return None,
    })
}

/// The part of a (positionless) skeleton that decides the module tree: the `mod` items,
/// and the other items of the type namespace that share a name with a `mod` of the same
/// module (they decide its def-path's disambiguator). Item offsets are renumbered in
/// pre-order over what is kept, so adding, removing or moving any other item leaves it
/// unchanged.
pub fn strip_to_modules(ast: &SourceFileAst) -> SourceFileAst {
    SourceFileAst {
        items: modules_of(&ast.items, &mut 0),
    }
}

/// The recursion follows inline-module nesting, which the parser bounds.
fn modules_of(items: &[Item], next: &mut u32) -> Vec<Item> {
    let mod_names: Vec<_> = items
        .iter()
        .filter_map(|i| match &i.kind {
            ItemKind::Mod(m) => Some(m.name.name),
            _ => None,
        })
        .collect();
    let mut out = Vec::new();
    for item in items {
        let kind = match &item.kind {
            ItemKind::Mod(m) => {
                let offset = *next;
                *next += 1;
                let items = m.items.as_deref().map(|inner| modules_of(inner, next));
                out.push(Item {
                    offset,
                    span: shared_frontend::span::Span::default(),
                    vis: item.vis,
                    kind: ItemKind::Mod(Arc::new(ModDef {
                        name: m.name,
                        items,
                    })),
                });
                continue;
            }
            ItemKind::Struct(s) if mod_names.contains(&s.name.name) => item.kind.clone(),
            ItemKind::TypeAlias(a) if mod_names.contains(&a.name.name) => item.kind.clone(),
            _ => continue,
        };
        out.push(Item {
            offset: *next,
            span: shared_frontend::span::Span::default(),
            vis: item.vis,
            kind,
        });
        *next += 1;
    }
    out
}

// ---------------------------------------------------------------------------------------
// A file split into its items without parsing it, so that an edit inside one item parses
// that item again and no other.

/// How many items (by ordinal) one chunk of a split file holds: an edit inside an item
/// parses its chunk's items again (and re-executes their `item_ast`s), and every chunk's
/// texts are compared. An item of a generated program parses in some 38k instructions,
/// far more than a chunk's own three queries cost: at 10k lines a leaf edit's
/// `chunk_parse` went from 1.22 M instructions (32 items) to 0.40 M (8 items), and a
/// build from scratch on a cache directory grew by less than 0.3 %.
pub const CHUNK_ITEMS: u32 = 8;

/// One item of a file, found by [`split`] from its tokens alone.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Piece {
    /// The item's first token (its first doc comment or attribute, if any).
    pub lo: u32,
    /// The end of the text parsed as the item: its last token, or the `{` opening the
    /// body of a module whose items are pieces of their own ([`Piece::body`]).
    pub hi: u32,
    /// The end of the item's last token (for a module with a body, its closing `}`).
    pub end: u32,
    /// How many inline modules enclose the item.
    pub depth: u32,
    /// A module with a body: `text[lo..hi]` closed by a `}` is parsed as the item (its
    /// name and visibility), and its items follow it as pieces.
    pub body: bool,
}

/// A chunk of a split file, each item parsed on its own: `items` is `None` when the
/// chunk is (the file could not be split) or one of its items does not parse cleanly.
#[derive(Debug)]
pub struct ChunkParse {
    pub chunk: Option<Arc<SplitChunk>>,
    pub items: Option<Vec<Item>>,
}

/// A file's text and its items in pre-order (the order of ordinals), or `None` where
/// [`split`] could not tell the items apart.
#[derive(Debug)]
pub struct FileSplit {
    pub text: Arc<[u8]>,
    pub pieces: Option<Vec<Piece>>,
}

/// The items with ordinals `c * CHUNK_ITEMS ..` of a split file: the file's text and the
/// pieces in it. Compared and fingerprinted by the pieces' nesting and texts only, so a
/// chunk whose items did not change is equal to its previous value wherever they moved.
#[derive(Clone, Debug)]
pub struct SplitChunk {
    pub text: Arc<[u8]>,
    pub pieces: Vec<Piece>,
}

impl SplitChunk {
    /// The text parsed as the `i`th item of the chunk (for a module with a body, up to
    /// its `{`).
    pub fn piece_text(&self, i: usize) -> &[u8] {
        let p = &self.pieces[i];
        &self.text[p.lo as usize..p.hi as usize]
    }

    /// The text of the `i`th item as the parser sees it: a module's body closed at once.
    fn parse_text(&self, i: usize) -> Option<std::borrow::Cow<'_, str>> {
        let text = std::str::from_utf8(self.piece_text(i)).ok()?;
        Some(if self.pieces[i].body {
            std::borrow::Cow::Owned(format!("{text}}}"))
        } else {
            std::borrow::Cow::Borrowed(text)
        })
    }

    /// Every item of the chunk parsed on its own (offsets relative to the item); `None`
    /// if one of them does not parse cleanly as exactly its text (the file's parse then
    /// decides).
    pub fn parse(&self) -> Option<Vec<Item>> {
        (0..self.pieces.len())
            .map(|i| shared_frontend::syntax::parser::parse_one_item(&self.parse_text(i)?))
            .collect()
    }
}

impl PartialEq for SplitChunk {
    fn eq(&self, other: &Self) -> bool {
        self.pieces.len() == other.pieces.len()
            && (0..self.pieces.len()).all(|i| {
                let (a, b) = (&self.pieces[i], &other.pieces[i]);
                (a.depth, a.body) == (b.depth, b.body) && self.piece_text(i) == other.piece_text(i)
            })
    }
}

impl StableHash<RillDb> for SplitChunk {
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_usize(self.pieces.len());
        for (i, p) in self.pieces.iter().enumerate() {
            h.write_u32(p.depth);
            h.write_u8(u8::from(p.body));
            // A piece's text is an item's whole text: digested as a blob (its xxh3-128
            // digest first when long), not fed to the hasher byte by byte.
            h.write_blob(self.piece_text(i));
        }
    }
}

/// The items of a chunk as they appear in the positionless skeleton, each with its
/// nesting depth: a module's items are not inside it but follow it (see [`assemble`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkSkeleton(pub Vec<(u32, Item)>);

impl StableHash<RillDb> for ChunkSkeleton {
    fn stable_hash(&self, h: &mut StableHasher) {
        hash_serde(self, h)
    }
}

/// One item of a chunk, parsed on its own, without body or position (a module without
/// its items, which are pieces of their own).
pub fn strip_one(item: &Item) -> Item {
    strip_item(item, &mut Some(0))
}

/// The positionless skeleton of a file from its items in pre-order, each stripped and
/// with its nesting depth: every item's offset is its ordinal, and a module with a body
/// receives the items that follow it one level deeper. Equal to [`strip_positionless`]
/// of the file's parse when the items are the file's (see [`split`]).
pub fn assemble(items: impl IntoIterator<Item = (u32, Item)>) -> SourceFileAst {
    fn close(levels: &mut Vec<Vec<Item>>) {
        let items = levels.pop().unwrap_or_default();
        let module = levels.last_mut().and_then(|l| l.last_mut());
        if let Some(Item {
            kind: ItemKind::Mod(m),
            ..
        }) = module
        {
            *m = Arc::new(ModDef {
                name: m.name,
                items: Some(items),
            });
        }
    }
    let mut levels: Vec<Vec<Item>> = vec![Vec::new()];
    for (ordinal, (depth, mut item)) in (0u32..).zip(items) {
        let depth = (depth as usize).min(levels.len() - 1);
        while levels.len() > depth + 1 {
            close(&mut levels);
        }
        item.offset = ordinal;
        let opens = matches!(&item.kind, ItemKind::Mod(m) if m.items.is_some());
        levels[depth].push(item);
        if opens {
            levels.push(Vec::new());
        }
    }
    while levels.len() > 1 {
        close(&mut levels);
    }
    SourceFileAst {
        items: levels.pop().unwrap_or_default(),
    }
}

/// The significant tokens of a text as [`split`] reads them: whitespace and plain
/// comments skipped; `Err` at a token the lexer reports an error for.
struct Tokens<'a> {
    bytes: &'a [u8],
    cursor: Cursor<'a>,
}

#[derive(Clone, Copy)]
struct Tok {
    kind: TokenKind,
    lo: u32,
    hi: u32,
}

/// Whether [`split`] gives up at a token: a lexical error the parse would report.
fn is_lexical_error(kind: TokenKind) -> bool {
    matches!(
        kind,
        TokenKind::BlockComment {
            terminated: false,
            ..
        } | TokenKind::Unknown
            | TokenKind::UnknownPrefix
            | TokenKind::RawIdent
            | TokenKind::RawLifetime
            | TokenKind::Lifetime {
                starts_with_number: true,
            }
    )
}

/// What [`Tokens::next_delimiter`] does at a byte where it stands.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Scan {
    /// A byte that is a token of its own or part of a whitespace or punctuation token,
    /// never of another kind of token, and never a delimiter or `;`: ASCII whitespace
    /// and the punctuation other than `/` (which may start a comment).
    Skip,
    /// An ASCII letter or `_`: an identifier or keyword, unless the byte after its ASCII
    /// bytes makes it something else (see [`AFTER_IDENT_SPECIAL`]).
    Word,
    /// `( ) [ ] { } ;`.
    Delimiter,
    /// Anything else is read by the lexer: digits (a number's token may hold `.`, `+`,
    /// `-` and a suffix), quotes, `/`, non-ASCII and control bytes, `\`, `` ` ``.
    Lex,
}

/// [`Scan`] of an ASCII byte.
const fn scan_of(c: u8) -> Scan {
    match c {
        b' ' | b'\t' | b'\n' | b'\r' | 0x0B | 0x0C => Scan::Skip,
        b'!' | b'#' | b'$' | b'%' | b'&' | b'*' | b'+' | b',' | b'-' | b'.' | b':' | b'<'
        | b'=' | b'>' | b'?' | b'@' | b'^' | b'|' | b'~' => Scan::Skip,
        b'a'..=b'z' | b'A'..=b'Z' | b'_' => Scan::Word,
        b'(' | b')' | b'[' | b']' | b'{' | b'}' | b';' => Scan::Delimiter,
        _ => Scan::Lex,
    }
}

/// [`Scan`] of every byte.
static SCAN: [Scan; 256] = {
    let mut table = [Scan::Lex; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = scan_of(b as u8);
        b += 1;
    }
    table
};

/// The bytes [`Tokens::next_delimiter`] passes over without a closer look: [`Scan::Skip`]
/// and [`Scan::Word`] bytes (whitespace, punctuation, ASCII letters and `_`) and digits,
/// but not `#`. Such bytes make whitespace, punctuation, identifiers and numbers, none of
/// which holds a delimiter or is a lexical error; what they may run into is looked at
/// where the run stops.
static PLAIN: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        table[b] = b != b'#' as usize
            && (matches!(scan_of(b as u8), Scan::Skip | Scan::Word) || (b as u8).is_ascii_digit());
        b += 1;
    }
    table
};

/// The first byte at or after `i` that is not [`PLAIN`], or the end.
fn plain_end(bytes: &[u8], mut i: usize) -> usize {
    #[cfg(target_arch = "x86_64")]
    while i + 16 <= bytes.len() {
        // SAFETY: the 16 bytes from `i` are in `bytes`.
        let stops = unsafe { simd::stops(bytes.as_ptr().add(i)) };
        if stops != 0 {
            return i + stops.trailing_zeros() as usize;
        }
        i += 16;
    }
    while i < bytes.len() && PLAIN[bytes[i] as usize] {
        i += 1;
    }
    i
}

/// [`PLAIN`] 16 bytes at a time, with SSE2 (part of every x86-64 processor).
#[cfg(target_arch = "x86_64")]
mod simd {
    use std::arch::x86_64::*;

    /// The ASCII bytes from 0x20 up that are not [`super::PLAIN`].
    const STOPS: [u8; 14] = [
        b'"', b'#', b'\'', b'(', b')', b'/', b';', b'[', b'\\', b']', b'`', b'{', b'}', 0x7f,
    ];

    /// [`STOPS`] other than the delimiters and `;`.
    const OTHER_STOPS: [u8; 7] = [b'"', b'#', b'\'', b'/', b'\\', b'`', 0x7f];

    /// A bit for each of the 16 bytes at `p` that is not [`super::PLAIN`] (bit `k` for
    /// byte `k`).
    ///
    /// # Safety
    /// `p` must point at 16 readable bytes.
    pub(super) unsafe fn stops(p: *const u8) -> u32 {
        let v = _mm_loadu_si128(p as *const __m128i);
        // Below 0x20 as a signed byte: the control bytes and every non-ASCII byte.
        let low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
        // The whitespace among the control bytes, 0x09 to 0x0D: `v - 9` at most 4.
        let x = _mm_sub_epi8(v, _mm_set1_epi8(0x09));
        let space = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(4)), x);
        let mut stop = _mm_andnot_si128(space, low);
        for c in STOPS {
            stop = _mm_or_si128(stop, _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8)));
        }
        _mm_movemask_epi8(stop) as u32
    }

    /// For the 16 bytes at `p`: [`stops`], and among them the opening delimiters
    /// (`( [ {`), the closing ones (`) ] }`) and `;`, a bit for each byte as in `stops`.
    ///
    /// # Safety
    /// `p` must point at 16 readable bytes.
    pub(super) unsafe fn delimiters(p: *const u8) -> (u32, u32, u32, u32) {
        let v = _mm_loadu_si128(p as *const __m128i);
        let is = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
        let open = _mm_or_si128(_mm_or_si128(is(b'('), is(b'[')), is(b'{'));
        let close = _mm_or_si128(_mm_or_si128(is(b')'), is(b']')), is(b'}'));
        let semi = is(b';');
        // As in `stops`, each delimiter compared once.
        let low = _mm_cmplt_epi8(v, _mm_set1_epi8(0x20));
        let x = _mm_sub_epi8(v, _mm_set1_epi8(0x09));
        let space = _mm_cmpeq_epi8(_mm_min_epu8(x, _mm_set1_epi8(4)), x);
        let mut stop = _mm_or_si128(_mm_andnot_si128(space, low), _mm_or_si128(open, close));
        stop = _mm_or_si128(stop, semi);
        for c in OTHER_STOPS {
            stop = _mm_or_si128(stop, is(c));
        }
        (
            _mm_movemask_epi8(stop) as u32,
            _mm_movemask_epi8(open) as u32,
            _mm_movemask_epi8(close) as u32,
            _mm_movemask_epi8(semi) as u32,
        )
    }
}

impl Tokens<'_> {
    fn new(text: &str) -> Tokens<'_> {
        Tokens {
            bytes: text.as_bytes(),
            cursor: Cursor::new(text),
        }
    }

    fn next(&mut self) -> Result<Tok, ()> {
        loop {
            self.cursor.skip_ascii_whitespace();
            let lo = self.cursor.pos() as u32;
            if self.cursor.at_end() {
                return Ok(Tok {
                    kind: TokenKind::Eof,
                    lo,
                    hi: lo,
                });
            }
            let kind = self.cursor.token_kind();
            let hi = self.cursor.pos() as u32;
            match kind {
                TokenKind::Whitespace
                | TokenKind::LineComment { doc_style: None }
                | TokenKind::BlockComment {
                    doc_style: None,
                    terminated: true,
                } => continue,
                _ if is_lexical_error(kind) => return Err(()),
                _ => return Ok(Tok { kind, lo, hi }),
            }
        }
    }

    /// The next delimiter (`( ) [ ] { }`), `;` or the end, past every other token: the
    /// tokens the scan of an item's interior reads. The same as [`Tokens::next`] until
    /// one of those (`Err` at the same lexical errors), but the lexer reads only the tokens
    /// that may hide a delimiter or be an error, and the rest is passed over by bytes.
    ///
    /// [`plain_end`] passes over [`PLAIN`] bytes (whitespace, punctuation, letters, `_`
    /// and digits: the bulk of a body) and stops at any other byte. What was passed over
    /// since `start` is whole tokens, except the run of ASCII identifier bytes right before
    /// the stop (the end of an identifier or a number), which may go on into what the
    /// stop byte starts: an unknown prefix before `#`, `"` or `'`, a non-ASCII identifier
    /// or suffix. The lexer then reads from the run's first byte, where [`Tokens::next`]
    /// started that token, unless a `.`, `+` or `-` stands before the run (or before the
    /// stop, without a run): the run or the stop byte may then be the end of a number
    /// (`1e+x"` and `1e+é` are the number `1e+` with the suffix `x` or `é`), and the lexer
    /// reads the tokens from `start` to find where the token holding the run begins.
    fn next_delimiter(&mut self) -> Result<Tok, ()> {
        let bytes = self.bytes;
        // Every byte in `start..i` is plain, and `start` is where a token starts.
        let mut start = self.cursor.pos();
        let mut i = start;
        loop {
            i = plain_end(bytes, i);
            let Some(&b) = bytes.get(i) else {
                self.cursor.set_pos(i);
                let lo = i as u32;
                return Ok(Tok {
                    kind: TokenKind::Eof,
                    lo,
                    hi: lo,
                });
            };
            let lex_at = if SCAN[b as usize] == Scan::Delimiter {
                let kind = match b {
                    b'(' => TokenKind::OpenParen,
                    b')' => TokenKind::CloseParen,
                    b'[' => TokenKind::OpenBracket,
                    b']' => TokenKind::CloseBracket,
                    b'{' => TokenKind::OpenBrace,
                    b'}' => TokenKind::CloseBrace,
                    _ => TokenKind::Semi,
                };
                self.cursor.set_pos(i + 1);
                return Ok(Tok {
                    kind,
                    lo: i as u32,
                    hi: i as u32 + 1,
                });
            } else {
                let mut run = i;
                while run > start && ASCII_ID_CONTINUE[bytes[run - 1] as usize] {
                    run -= 1;
                }
                let special = AFTER_IDENT_SPECIAL[b as usize];
                if special && run > start && matches!(bytes[run - 1], b'.' | b'+' | b'-') {
                    // The run, or the stop byte itself, may be the tail of a number (`1e+x"`
                    // and `1e+é` are the number `1e+` with the suffix `x` or `é`): the lexer
                    // reads the tokens from `start` up to the one that holds the run's
                    // first byte, and then that token.
                    self.cursor.set_pos(start);
                    loop {
                        let lo = self.cursor.pos();
                        if lo >= run {
                            break lo;
                        }
                        if is_lexical_error(self.cursor.token_kind()) {
                            return Err(());
                        }
                        if self.cursor.pos() > run {
                            break lo;
                        }
                    }
                } else if special && run < i {
                    run
                } else if b == b'#' {
                    // Punctuation of its own.
                    i += 1;
                    start = i;
                    continue;
                } else {
                    // Quotes, `/`, non-ASCII and control bytes, `\`, `` ` ``.
                    i
                }
            };
            self.cursor.set_pos(lex_at);
            let kind = self.cursor.token_kind();
            let hi = self.cursor.pos();
            match kind {
                _ if is_lexical_error(kind) => return Err(()),
                TokenKind::OpenParen
                | TokenKind::CloseParen
                | TokenKind::OpenBracket
                | TokenKind::CloseBracket
                | TokenKind::OpenBrace
                | TokenKind::CloseBrace
                | TokenKind::Semi => {
                    return Ok(Tok {
                        kind,
                        lo: lex_at as u32,
                        hi: hi as u32,
                    })
                }
                _ => {
                    i = hi;
                    start = hi;
                }
            }
        }
    }

    /// At an opening delimiter `open`: the end of its matching closing delimiter.
    fn skip_group(&mut self, open: Tok) -> Result<u32, ()> {
        let mut depth = 0usize;
        let mut t = open;
        loop {
            match t.kind {
                TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => depth += 1,
                TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(t.hi);
                    }
                }
                TokenKind::Eof => return Err(()),
                _ => {}
            }
            #[cfg(target_arch = "x86_64")]
            if let Some(hi) = self.skip_blocks(&mut depth) {
                return Ok(hi);
            }
            t = self.next_delimiter()?;
        }
    }

    /// Inside a group `depth` deep, with the cursor where a token starts: passes over the
    /// whole blocks of 16 bytes that hold only [`PLAIN`] bytes and delimiters, and over the
    /// start of the first block that holds another byte, up to that byte, counting the
    /// delimiters as [`Tokens::skip_group`] does token by token. The end of the group if it
    /// closes there; otherwise the cursor is left after the last delimiter passed over (or
    /// where it was), where a token starts, and [`Tokens::next_delimiter`] goes on from it,
    /// as it would have after returning that delimiter: between it and the next byte to
    /// look at there are only plain bytes.
    #[cfg(target_arch = "x86_64")]
    fn skip_blocks(&mut self, depth: &mut usize) -> Option<u32> {
        let bytes = self.bytes;
        let mut i = self.cursor.pos();
        let mut boundary = i;
        while i + 16 <= bytes.len() {
            // SAFETY: the 16 bytes from `i` are in `bytes`.
            let (stops, open, close, semi) = unsafe { simd::delimiters(bytes.as_ptr().add(i)) };
            let delimiters = open | close | semi;
            let other = stops & !delimiters;
            // The bytes before the first other one.
            let before = (1u32 << other.trailing_zeros().min(16)) - 1;
            let mut d = (open | close) & before;
            while d != 0 {
                let k = d.trailing_zeros();
                if open & (1 << k) != 0 {
                    *depth += 1;
                } else {
                    *depth -= 1;
                    if *depth == 0 {
                        let hi = i + k as usize + 1;
                        self.cursor.set_pos(hi);
                        return Some(hi as u32);
                    }
                }
                d &= d - 1;
            }
            let passed = delimiters & before;
            if passed != 0 {
                boundary = i + (32 - passed.leading_zeros()) as usize;
            }
            if other != 0 {
                break;
            }
            i += 16;
        }
        self.cursor.set_pos(boundary);
        None
    }
}

/// Splits a file into its items from its tokens alone (delimiters, `;` and the keywords
/// that start items): each item with its extent and nesting, in pre-order, the items of
/// an inline module after it. `None` wherever the split is unsure: a lexical error,
/// something between items that is not whitespace or a plain comment, an item that does
/// not start with the keyword of a function, constant, struct, type alias, `use` or
/// module (after its doc comments, attributes and `pub`), an unbalanced delimiter, a
/// module nested as deep as the parser's limit.
///
/// The split only proposes: each item's text is parsed on its own
/// ([`SplitChunk::parse`]), and only if every one parses cleanly as exactly its text are
/// the items the file's (`parse_one_item`); otherwise the file's parse decides.
pub fn split(text: &str) -> Option<Vec<Piece>> {
    if text.len() > shared_frontend::limits::MAX_FILE_SIZE {
        return None;
    }
    let mut toks = Tokens::new(text);
    let mut pieces: Vec<Piece> = Vec::new();
    // The pieces of the modules whose bodies are open.
    let mut open: Vec<usize> = Vec::new();
    // Inner doc comments are skipped at the start of a file or module body only.
    let mut body_start = true;
    loop {
        let mut t = toks.next().ok()?;
        match t.kind {
            TokenKind::Eof if open.is_empty() => return Some(pieces),
            TokenKind::Eof => return None,
            TokenKind::CloseBrace => {
                let module = open.pop()?;
                pieces[module].end = t.hi;
                body_start = false;
                continue;
            }
            TokenKind::LineComment {
                doc_style: Some(DocStyle::Inner),
            }
            | TokenKind::BlockComment {
                doc_style: Some(DocStyle::Inner),
                ..
            } if body_start => continue,
            _ => {}
        }
        body_start = false;
        let lo = t.lo;
        // Outer doc comments and attributes.
        loop {
            match t.kind {
                TokenKind::LineComment {
                    doc_style: Some(DocStyle::Outer),
                }
                | TokenKind::BlockComment {
                    doc_style: Some(DocStyle::Outer),
                    ..
                } => t = toks.next().ok()?,
                TokenKind::Pound => {
                    let bracket = toks.next().ok()?;
                    if !matches!(bracket.kind, TokenKind::OpenBracket) {
                        return None;
                    }
                    toks.skip_group(bracket).ok()?;
                    t = toks.next().ok()?;
                }
                _ => break,
            }
        }
        if matches!(t.kind, TokenKind::Keyword(Keyword::Pub)) {
            t = toks.next().ok()?;
        }
        let depth = open.len() as u32;
        let mut piece = Piece {
            lo,
            hi: 0,
            end: 0,
            depth,
            body: false,
        };
        match t.kind {
            TokenKind::Keyword(Keyword::Mod) => {
                toks.next().ok()?; // the name
                let after = toks.next().ok()?;
                match after.kind {
                    TokenKind::Semi => {
                        piece.hi = after.hi;
                        piece.end = after.hi;
                    }
                    TokenKind::OpenBrace if depth < MAX_MODULE_DEPTH => {
                        piece.hi = after.hi;
                        piece.body = true;
                        open.push(pieces.len());
                        body_start = true;
                    }
                    _ => return None,
                }
            }
            // Up to a `;` outside delimiters, or for a function or struct the end of its
            // first `{ … }` group.
            TokenKind::Keyword(
                kw
                @ (Keyword::Fn | Keyword::Struct | Keyword::Const | Keyword::Type | Keyword::Use),
            ) => {
                let brace_ends = matches!(kw, Keyword::Fn | Keyword::Struct);
                let end = loop {
                    t = toks.next_delimiter().ok()?;
                    match t.kind {
                        TokenKind::Semi => break t.hi,
                        TokenKind::OpenBrace if brace_ends => break toks.skip_group(t).ok()?,
                        TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => {
                            toks.skip_group(t).ok()?;
                        }
                        TokenKind::CloseParen
                        | TokenKind::CloseBracket
                        | TokenKind::CloseBrace
                        | TokenKind::Eof => return None,
                        _ => {}
                    }
                };
                piece.hi = end;
                piece.end = end;
            }
            _ => return None,
        }
        pieces.push(piece);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shared_frontend::syntax::parser::parse_file;

    /// The split as it was before [`Tokens::next_delimiter`]: every token of an item's
    /// interior read by the lexer. [`split`] must give the same on every input.
    fn split_reference(text: &str) -> Option<Vec<Piece>> {
        if text.len() > shared_frontend::limits::MAX_FILE_SIZE {
            return None;
        }
        let mut toks = Tokens::new(text);
        let mut pieces: Vec<Piece> = Vec::new();
        // The pieces of the modules whose bodies are open.
        let mut open: Vec<usize> = Vec::new();
        // Inner doc comments are skipped at the start of a file or module body only.
        let mut body_start = true;
        loop {
            let mut t = toks.next().ok()?;
            match t.kind {
                TokenKind::Eof if open.is_empty() => return Some(pieces),
                TokenKind::Eof => return None,
                TokenKind::CloseBrace => {
                    let module = open.pop()?;
                    pieces[module].end = t.hi;
                    body_start = false;
                    continue;
                }
                TokenKind::LineComment {
                    doc_style: Some(DocStyle::Inner),
                }
                | TokenKind::BlockComment {
                    doc_style: Some(DocStyle::Inner),
                    ..
                } if body_start => continue,
                _ => {}
            }
            body_start = false;
            let lo = t.lo;
            // Outer doc comments and attributes.
            loop {
                match t.kind {
                    TokenKind::LineComment {
                        doc_style: Some(DocStyle::Outer),
                    }
                    | TokenKind::BlockComment {
                        doc_style: Some(DocStyle::Outer),
                        ..
                    } => t = toks.next().ok()?,
                    TokenKind::Pound => {
                        let bracket = toks.next().ok()?;
                        if !matches!(bracket.kind, TokenKind::OpenBracket) {
                            return None;
                        }
                        skip_group_reference(&mut toks, bracket).ok()?;
                        t = toks.next().ok()?;
                    }
                    _ => break,
                }
            }
            if matches!(t.kind, TokenKind::Keyword(Keyword::Pub)) {
                t = toks.next().ok()?;
            }
            let depth = open.len() as u32;
            let mut piece = Piece {
                lo,
                hi: 0,
                end: 0,
                depth,
                body: false,
            };
            match t.kind {
                TokenKind::Keyword(Keyword::Mod) => {
                    toks.next().ok()?; // the name
                    let after = toks.next().ok()?;
                    match after.kind {
                        TokenKind::Semi => {
                            piece.hi = after.hi;
                            piece.end = after.hi;
                        }
                        TokenKind::OpenBrace if depth < MAX_MODULE_DEPTH => {
                            piece.hi = after.hi;
                            piece.body = true;
                            open.push(pieces.len());
                            body_start = true;
                        }
                        _ => return None,
                    }
                }
                // Up to a `;` outside delimiters, or for a function or struct the end of its
                // first `{ … }` group.
                TokenKind::Keyword(
                    kw @ (Keyword::Fn
                    | Keyword::Struct
                    | Keyword::Const
                    | Keyword::Type
                    | Keyword::Use),
                ) => {
                    let brace_ends = matches!(kw, Keyword::Fn | Keyword::Struct);
                    let end = loop {
                        t = toks.next().ok()?;
                        match t.kind {
                            TokenKind::Semi => break t.hi,
                            TokenKind::OpenBrace if brace_ends => {
                                break skip_group_reference(&mut toks, t).ok()?
                            }
                            TokenKind::OpenParen
                            | TokenKind::OpenBracket
                            | TokenKind::OpenBrace => {
                                skip_group_reference(&mut toks, t).ok()?;
                            }
                            TokenKind::CloseParen
                            | TokenKind::CloseBracket
                            | TokenKind::CloseBrace
                            | TokenKind::Eof => return None,
                            _ => {}
                        }
                    };
                    piece.hi = end;
                    piece.end = end;
                }
                _ => return None,
            }
            pieces.push(piece);
        }
    }

    /// [`Tokens::skip_group`] reading every token with [`Tokens::next`].
    fn skip_group_reference(toks: &mut Tokens<'_>, open: Tok) -> Result<u32, ()> {
        let mut depth = 0usize;
        let mut t = open;
        loop {
            match t.kind {
                TokenKind::OpenParen | TokenKind::OpenBracket | TokenKind::OpenBrace => depth += 1,
                TokenKind::CloseParen | TokenKind::CloseBracket | TokenKind::CloseBrace => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(t.hi);
                    }
                }
                TokenKind::Eof => return Err(()),
                _ => {}
            }
            t = toks.next()?;
        }
    }

    /// Whether the split of `text` is taken (every item parsed cleanly on its own), and
    /// then that it gives exactly the file parse's items: the positionless skeleton, each
    /// item's extent, and each item's syntax.
    fn check(text: &str) -> bool {
        assert_eq!(split(text), split_reference(text), "{text}");
        let Some(pieces) = split(text) else {
            return false;
        };
        let chunk = SplitChunk {
            text: Arc::from(text.as_bytes()),
            pieces: pieces.clone(),
        };
        let Some(items) = chunk.parse() else {
            return false;
        };
        let (ast, diags) = parse_file(text);
        assert!(
            diags.is_empty(),
            "split taken for a file with errors: {diags:?}\n{text}"
        );
        let assembled = assemble(
            pieces
                .iter()
                .zip(&items)
                .map(|(p, i)| (p.depth, strip_one(i))),
        );
        assert_eq!(assembled, strip_positionless(&ast), "{text}");
        let extents: Vec<(u32, u32)> = pieces.iter().map(|p| (p.lo, p.end - p.lo)).collect();
        assert_eq!(extents, item_extents(&ast), "{text}");
        for (ordinal, item) in items.iter().enumerate() {
            let whole = item_by_ordinal(&ast, ordinal as u32);
            let alone = item_ast_of(item);
            let encode = |a: &Option<ItemAst>| query::codec_encode(a).expect("encodes");
            match (&whole, &alone) {
                (Some(ItemAst::Mod(_)), Some(ItemAst::Mod(_))) => {}
                _ => assert_eq!(encode(&whole), encode(&alone), "item {ordinal} of\n{text}"),
            }
        }
        true
    }

    fn corpus_files() -> Vec<String> {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../experiments/corpus");
        let mut out = Vec::new();
        let mut dirs = vec![root];
        while let Some(dir) = dirs.pop() {
            for entry in std::fs::read_dir(&dir).expect("corpus directory") {
                let path = entry.expect("entry").path();
                if path.is_dir() {
                    dirs.push(path);
                } else if path.extension().is_some_and(|e| e == "rs") {
                    out.push(std::fs::read_to_string(&path).unwrap_or_default());
                }
            }
        }
        out.sort();
        out
    }

    /// A small deterministic generator (xorshift).
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
        fn below(&mut self, n: usize) -> usize {
            (self.next() % n.max(1) as u64) as usize
        }
    }

    /// [`plain_end`] stops at the first byte that is not [`PLAIN`], wherever it stands in
    /// a block of 16, for every byte value.
    #[test]
    fn plain_end_stops_at_the_first_byte_not_plain() {
        for b in 0..=255u8 {
            for at in 0..40 {
                let mut text = vec![b'a'; 40];
                text[at] = b;
                let expected = if PLAIN[b as usize] { 40 } else { at };
                for from in 0..=at {
                    assert_eq!(
                        plain_end(&text, from),
                        expected,
                        "byte {b:#x} at {at} from {from}"
                    );
                }
            }
        }
        let all: Vec<u8> = (0..=255u8).collect();
        let first = all.iter().position(|&b| !PLAIN[b as usize]).unwrap_or(256);
        assert_eq!(plain_end(&all, 0), first);
    }

    /// [`simd::delimiters`] finds the same stops as [`simd::stops`], and among them exactly
    /// the delimiters and `;`, for every byte value at every place in a block.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn delimiters_agree_with_stops_for_every_byte() {
        for b in 0..=255u8 {
            for at in 0..16 {
                let mut block = [b'a'; 16];
                block[at] = b;
                // SAFETY: `block` holds 16 bytes.
                let (stops, open, close, semi) = unsafe { simd::delimiters(block.as_ptr()) };
                // SAFETY: as above.
                assert_eq!(stops, unsafe { simd::stops(block.as_ptr()) }, "byte {b:#x}");
                let bit = |yes: bool| if yes { 1u32 << at } else { 0 };
                assert_eq!(open, bit(matches!(b, b'(' | b'[' | b'{')), "byte {b:#x}");
                assert_eq!(close, bit(matches!(b, b')' | b']' | b'}')), "byte {b:#x}");
                assert_eq!(semi, bit(b == b';'), "byte {b:#x}");
            }
        }
    }

    /// Long bodies, where whole blocks of 16 bytes are passed over at once: nested groups
    /// closing anywhere in a block, with literals, comments and `#` among them.
    #[test]
    fn the_split_is_the_reference_on_long_bodies() {
        let bodies = [
            "let a = (1 + (2 * [3, 4][0])) ; let b = {{ c; }};",
            "f(g(h(i(j(k(l(m(n(o(p(q(r(s(t(u(1))))))))))))))));",
            "let s = \"a ( [ {\"; /* ( */ let c = ')'; // }\n x += 1;",
            "if x { y } else { z } #[allow(x)] let q = 1e+5; let r = 1.0f64;",
            "abcdefghijklmnop(abcdefghijklmno);abcdefghijklmnopq[0];{}{}{}{}{}{}{}{}",
        ];
        let mut found = 0;
        for (n, body) in bodies.iter().enumerate() {
            for repeat in [1, 3, 17] {
                for pad in 0..17 {
                    let text = format!(
                        "{}fn f{n}() {{ {} }}\nconst C: u8 = 1;\nfn g() {{ {} }}\n",
                        " ".repeat(pad),
                        body.repeat(repeat),
                        body
                    );
                    found += usize::from(same_split(&text));
                    same_split(&text[..text.len() - pad.min(text.len())]);
                }
            }
        }
        assert_eq!(found, bodies.len() * 3 * 17);
    }

    /// `split` and [`split_reference`] agree on `text`; whether the split is found.
    fn same_split(text: &str) -> bool {
        let fast = split(text);
        assert_eq!(fast, split_reference(text), "{text:?}");
        fast.is_some()
    }

    /// The corpus, and each file cut short at a few dozen places (unbalanced delimiters,
    /// literals and comments cut open).
    #[test]
    fn the_split_is_the_reference_on_the_corpus_and_its_prefixes() {
        let files = corpus_files();
        let found = files.iter().filter(|t| same_split(t)).count();
        assert!(found * 2 > files.len(), "{found} of {}", files.len());
        for text in &files {
            let step = (text.len() / 40).max(1);
            for mut at in (0..text.len()).step_by(step) {
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                same_split(&text[..at]);
                same_split(&text[at..]);
            }
        }
    }

    /// Generated programs, their ill-formed mutations and their edits.
    #[test]
    fn the_split_is_the_reference_on_generated_programs() {
        let (mut found, mut total) = (0, 0);
        for seed in 0..12u64 {
            let program = rill_gen::generate(&rill_gen::GenConfig {
                seed,
                target_lines: 300 + 400 * seed as usize,
                ..rill_gen::GenConfig::default()
            });
            let mut variants = vec![program.clone()];
            variants.extend((0..8).filter_map(|s| {
                Some(rill_gen::mutate_ill_formed(&program, seed * 8 + s)?.program)
            }));
            variants.extend(
                rill_gen::edit_history(&program, 8, seed)
                    .into_iter()
                    .map(|e| e.program),
            );
            for p in &variants {
                for f in &p.files {
                    total += 1;
                    found += usize::from(same_split(&f.text));
                }
            }
        }
        // Generated programs are valid, their mutations mostly beyond the syntax.
        assert!(found * 10 > total * 9, "{found} of {total}");
    }

    /// What can hide a delimiter or `;` from a scan that does not lex (strings, raw
    /// strings, characters, comments), what looks like one of those and is not
    /// (lifetimes, literal suffixes, reserved prefixes), lexical errors and non-ASCII
    /// text, in every position of a few item shapes.
    const ADVERSARIAL: &[&str] = &[
        "{",
        "}",
        "(",
        ")",
        "[",
        "]",
        ";",
        "\"{\"",
        "\"}\"",
        "\"\\\"}\"",
        "\"\\\\\"",
        "\"",
        "'",
        "'{'",
        "'}'",
        "';'",
        "'\\''",
        "'\\\\'",
        "b'}'",
        "b'{",
        "b\"}\"",
        "b\"",
        "br\"}\"",
        "br#\"}\"#",
        "r\"}\"",
        "r#\"}\"#",
        "r#\"\"}\"#",
        "r##\"}\"#}\"##",
        "r#\"",
        "r##\"}\"#",
        "c\"}\"",
        "cr\"}\"",
        "cr#\"}\"#",
        "rb\"}\"",
        "r#x",
        "r#",
        "r#_",
        "'a",
        "'a}",
        "'a'",
        "'a;",
        "'_",
        "'1",
        "'1a",
        "'r#a",
        "'}",
        "'\\u{7d}'",
        "'é'",
        "'é",
        "'ab'",
        "'\n'",
        "//}\n",
        "// }",
        "/* } */",
        "/* /* } */ } */",
        "/* /* } */",
        "/*",
        "*/",
        "/**/",
        "/** } */",
        "/*! } */",
        "/***/",
        "///}\n",
        "//!}\n",
        "////}\n",
        "/",
        "/=",
        "#",
        "#[",
        "#!",
        "x",
        "é",
        "éx",
        "xé",
        "x_1",
        "x1\"}\"",
        "x1'}'",
        "x1#",
        "x1#[",
        "a1b2",
        "x_1é",
        "ab#",
        "x'a",
        "12;",
        "12 ",
        "1,2",
        "0.",
        "7}",
        "x.0.1",
        "1e+x\"}\"",
        "1e-r#\"}\"#",
        "1.x'}'",
        "1.5e\"}\"",
        "0x1f#",
        "1é\"}\"",
        "1e+é",
        "1e-é#",
        "1.é",
        "x+é",
        "€",
        "\u{85}",
        "\u{200e}",
        "\u{feff}",
        "\u{2028}",
        "\\",
        "`",
        "\0",
        "\x7f",
        "\x01",
        "1",
        "1.0",
        "1.",
        "1.e",
        "1e",
        "1e+",
        "1e+x",
        "1e-5x'}'",
        "1.5e3\"}\"",
        "1x\"}\"",
        "1é",
        "0x",
        "0b1",
        "0x1f_u8",
        "1..2",
        "1.foo",
        "x\"}\"",
        "x'}'",
        "x#",
        "x#[",
        "1'}'",
        "1\"}\"",
        "_",
        "_\"}\"",
        "b",
        "c",
        "r",
        "b'",
        "\n",
        " ",
        "\t",
        "\r\n",
        ":: ->",
        "<<=",
        "..=",
        "=>",
        "fn",
        "mod m {",
        "pub",
        "use",
        "struct",
    ];

    /// Item shapes with a hole for a fragment: a function body, a constant's value, a
    /// struct's fields, an attribute, a module's item, a type, and the end of the file.
    const SHAPES: &[(&str, &str)] = &[
        ("fn f() { ", " }\nfn g() {}\n"),
        ("const C: i32 = ", ";\nstruct S;\n"),
        ("struct S { ", " }\n"),
        ("#[a(", ")]\nfn f() {}\n"),
        ("mod m {\n    fn f() -> [i32; 2] { ", " }\n}\n"),
        ("type T = [i32; ", "];\nuse a::b;\n"),
        ("fn f() { let x = (", ""),
        ("", ""),
    ];

    /// Every fragment and every pair of fragments, in every shape.
    #[test]
    fn the_split_is_the_reference_on_adversarial_pairs() {
        let (mut found, mut total) = (0, 0);
        for (before, after) in SHAPES {
            for a in ADVERSARIAL {
                for b in ADVERSARIAL.iter().chain([&""]) {
                    total += 1;
                    found += usize::from(same_split(&format!("{before}{a}{b}{after}")));
                }
            }
        }
        assert!(found > 0 && found < total, "{found} of {total}");
    }

    /// Random runs of fragments, and random strings over the bytes that matter, in every
    /// shape.
    #[test]
    fn the_split_is_the_reference_on_random_fragments() {
        const CHARS: &[char] = &[
            '{', '}', '(', ')', '[', ']', ';', '"', '\'', '/', '*', '!', '#', 'r', 'b', 'c', 'x',
            'e', '1', '0', '.', '+', '-', '_', ' ', '\n', '\\', 'é', '€', '\u{85}', '\0',
        ];
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let (mut found, mut total) = (0, 0);
        for _ in 0..20_000 {
            let (before, after) = SHAPES[rng.below(SHAPES.len())];
            let mut text = String::from(before);
            for _ in 0..=rng.below(6) {
                text.push_str(ADVERSARIAL[rng.below(ADVERSARIAL.len())]);
            }
            text.push_str(after);
            total += 1;
            found += usize::from(same_split(&text));
            let mut text = String::from(before);
            for _ in 0..rng.below(24) {
                text.push(CHARS[rng.below(CHARS.len())]);
            }
            text.push_str(after);
            total += 1;
            found += usize::from(same_split(&text));
        }
        assert!(found > 0 && found < total, "{found} of {total}");
    }

    #[test]
    fn the_split_is_the_parse_on_the_corpus() {
        let files = corpus_files();
        assert!(files.len() > 100);
        let taken = files.iter().filter(|t| check(t)).count();
        // Most of the corpus is clean code the split takes (its failing programs have
        // type errors, not syntax errors).
        assert!(taken * 2 > files.len(), "{taken} of {}", files.len());
    }

    /// Random edits of corpus files: whenever the split is taken it is the parse.
    #[test]
    fn the_split_is_the_parse_after_random_edits() {
        const SNIPPETS: &[&str] = &[
            "{",
            "}",
            "(",
            ")",
            "[",
            "]",
            ";",
            "/*",
            "*/",
            "//",
            "///",
            "//!",
            "\"",
            "'",
            "r#\"",
            "\"#",
            "#",
            "#[",
            "pub ",
            "mod m {",
            "mod m;",
            "fn f() {}",
            "const C: i32 = 1;",
            "struct S;",
            "use a::b;",
            "\n",
            " ",
            "'a",
            "b'x'",
            "1",
            "x",
            "/** d */",
            "#![a]",
            "fn g() -> [i32; 2] { [1; 2] }",
            "const D: i32 = { 1 };",
            "type T = i32;",
        ];
        let files = corpus_files();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        let (mut taken, mut total) = (0, 0);
        for text in files.iter().filter(|t| !t.is_empty()) {
            for _ in 0..20 {
                let mut t = text.clone();
                for _ in 0..=rng.below(2) {
                    let mut at = rng.below(t.len() + 1);
                    while !t.is_char_boundary(at) {
                        at -= 1;
                    }
                    if rng.below(3) == 0 {
                        let mut end = (at + 1 + rng.below(3)).min(t.len());
                        while !t.is_char_boundary(end) {
                            end += 1;
                        }
                        t.replace_range(at..end, "");
                    } else {
                        t.insert_str(at, SNIPPETS[rng.below(SNIPPETS.len())]);
                    }
                }
                total += 1;
                taken += usize::from(check(&t));
            }
        }
        assert!(taken > 0 && taken < total, "{taken} of {total}");
    }
}

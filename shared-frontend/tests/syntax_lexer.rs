//! Lexer snapshot tests: `check(input, expect)` prints one line per token.
//! Bless with `UPDATE_EXPECT=1 cargo test -p shared-frontend --test syntax_lexer`.

use expect_test::{expect, Expect};
use shared_frontend::syntax::dump::tokens_to_string;
use shared_frontend::syntax::lexer::tokenize;

fn check(input: &str, expect: Expect) {
    let tokens = tokenize(input);
    let total: u32 = tokens.iter().map(|t| t.len).sum();
    assert_eq!(
        total as usize,
        input.len(),
        "token lengths must cover the input"
    );
    assert!(tokens.iter().all(|t| t.len > 0), "no empty tokens");
    expect.assert_eq(&tokens_to_string(input, &tokens));
}

#[test]
fn identifiers_and_keywords() {
    check(
        "x _x _ café r#fn r#x try yield async dyn Self self union macro_rules",
        expect![[r#"
        Ident 0..1 "x"
        Whitespace 1..2 " "
        Ident 2..4 "_x"
        Whitespace 4..5 " "
        Underscore 5..6 "_"
        Whitespace 6..7 " "
        Ident 7..12 "café"
        Whitespace 12..13 " "
        RawIdent 13..17 "r#fn"
        Whitespace 17..18 " "
        RawIdent 18..21 "r#x"
        Whitespace 21..22 " "
        Keyword(try) 22..25 "try"
        Whitespace 25..26 " "
        Keyword(yield) 26..31 "yield"
        Whitespace 31..32 " "
        Keyword(async) 32..37 "async"
        Whitespace 37..38 " "
        Keyword(dyn) 38..41 "dyn"
        Whitespace 41..42 " "
        Keyword(Self) 42..46 "Self"
        Whitespace 46..47 " "
        Keyword(self) 47..51 "self"
        Whitespace 51..52 " "
        Ident 52..57 "union"
        Whitespace 57..58 " "
        Ident 58..69 "macro_rules"
    "#]],
    );
}

#[test]
fn all_keywords() {
    check(
        "as break const continue crate else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while async await dyn abstract become box do final macro override priv typeof unsized virtual yield try",
        expect![[r#"
            Keyword(as) 0..2 "as"
            Whitespace 2..3 " "
            Keyword(break) 3..8 "break"
            Whitespace 8..9 " "
            Keyword(const) 9..14 "const"
            Whitespace 14..15 " "
            Keyword(continue) 15..23 "continue"
            Whitespace 23..24 " "
            Keyword(crate) 24..29 "crate"
            Whitespace 29..30 " "
            Keyword(else) 30..34 "else"
            Whitespace 34..35 " "
            Keyword(enum) 35..39 "enum"
            Whitespace 39..40 " "
            Keyword(extern) 40..46 "extern"
            Whitespace 46..47 " "
            Keyword(false) 47..52 "false"
            Whitespace 52..53 " "
            Keyword(fn) 53..55 "fn"
            Whitespace 55..56 " "
            Keyword(for) 56..59 "for"
            Whitespace 59..60 " "
            Keyword(if) 60..62 "if"
            Whitespace 62..63 " "
            Keyword(impl) 63..67 "impl"
            Whitespace 67..68 " "
            Keyword(in) 68..70 "in"
            Whitespace 70..71 " "
            Keyword(let) 71..74 "let"
            Whitespace 74..75 " "
            Keyword(loop) 75..79 "loop"
            Whitespace 79..80 " "
            Keyword(match) 80..85 "match"
            Whitespace 85..86 " "
            Keyword(mod) 86..89 "mod"
            Whitespace 89..90 " "
            Keyword(move) 90..94 "move"
            Whitespace 94..95 " "
            Keyword(mut) 95..98 "mut"
            Whitespace 98..99 " "
            Keyword(pub) 99..102 "pub"
            Whitespace 102..103 " "
            Keyword(ref) 103..106 "ref"
            Whitespace 106..107 " "
            Keyword(return) 107..113 "return"
            Whitespace 113..114 " "
            Keyword(self) 114..118 "self"
            Whitespace 118..119 " "
            Keyword(Self) 119..123 "Self"
            Whitespace 123..124 " "
            Keyword(static) 124..130 "static"
            Whitespace 130..131 " "
            Keyword(struct) 131..137 "struct"
            Whitespace 137..138 " "
            Keyword(super) 138..143 "super"
            Whitespace 143..144 " "
            Keyword(trait) 144..149 "trait"
            Whitespace 149..150 " "
            Keyword(true) 150..154 "true"
            Whitespace 154..155 " "
            Keyword(type) 155..159 "type"
            Whitespace 159..160 " "
            Keyword(unsafe) 160..166 "unsafe"
            Whitespace 166..167 " "
            Keyword(use) 167..170 "use"
            Whitespace 170..171 " "
            Keyword(where) 171..176 "where"
            Whitespace 176..177 " "
            Keyword(while) 177..182 "while"
            Whitespace 182..183 " "
            Keyword(async) 183..188 "async"
            Whitespace 188..189 " "
            Keyword(await) 189..194 "await"
            Whitespace 194..195 " "
            Keyword(dyn) 195..198 "dyn"
            Whitespace 198..199 " "
            Keyword(abstract) 199..207 "abstract"
            Whitespace 207..208 " "
            Keyword(become) 208..214 "become"
            Whitespace 214..215 " "
            Keyword(box) 215..218 "box"
            Whitespace 218..219 " "
            Keyword(do) 219..221 "do"
            Whitespace 221..222 " "
            Keyword(final) 222..227 "final"
            Whitespace 227..228 " "
            Keyword(macro) 228..233 "macro"
            Whitespace 233..234 " "
            Keyword(override) 234..242 "override"
            Whitespace 242..243 " "
            Keyword(priv) 243..247 "priv"
            Whitespace 247..248 " "
            Keyword(typeof) 248..254 "typeof"
            Whitespace 254..255 " "
            Keyword(unsized) 255..262 "unsized"
            Whitespace 262..263 " "
            Keyword(virtual) 263..270 "virtual"
            Whitespace 270..271 " "
            Keyword(yield) 271..276 "yield"
            Whitespace 276..277 " "
            Keyword(try) 277..280 "try"
        "#]],
    );
}

#[test]
fn punctuation() {
    check(
        "; , . .. ... ..= ( ) { } [ ] @ # ~ ? : :: $ = == => ! != < <= << <<= <- > >= >> >>= - -= -> & && &= | || |= + += * *= / /= ^ ^= % %=",
        expect![[r##"
            Semi 0..1 ";"
            Whitespace 1..2 " "
            Comma 2..3 ","
            Whitespace 3..4 " "
            Dot 4..5 "."
            Whitespace 5..6 " "
            DotDot 6..8 ".."
            Whitespace 8..9 " "
            DotDotDot 9..12 "..."
            Whitespace 12..13 " "
            DotDotEq 13..16 "..="
            Whitespace 16..17 " "
            OpenParen 17..18 "("
            Whitespace 18..19 " "
            CloseParen 19..20 ")"
            Whitespace 20..21 " "
            OpenBrace 21..22 "{"
            Whitespace 22..23 " "
            CloseBrace 23..24 "}"
            Whitespace 24..25 " "
            OpenBracket 25..26 "["
            Whitespace 26..27 " "
            CloseBracket 27..28 "]"
            Whitespace 28..29 " "
            At 29..30 "@"
            Whitespace 30..31 " "
            Pound 31..32 "#"
            Whitespace 32..33 " "
            Tilde 33..34 "~"
            Whitespace 34..35 " "
            Question 35..36 "?"
            Whitespace 36..37 " "
            Colon 37..38 ":"
            Whitespace 38..39 " "
            PathSep 39..41 "::"
            Whitespace 41..42 " "
            Dollar 42..43 "$"
            Whitespace 43..44 " "
            Eq 44..45 "="
            Whitespace 45..46 " "
            EqEq 46..48 "=="
            Whitespace 48..49 " "
            FatArrow 49..51 "=>"
            Whitespace 51..52 " "
            Bang 52..53 "!"
            Whitespace 53..54 " "
            Ne 54..56 "!="
            Whitespace 56..57 " "
            Lt 57..58 "<"
            Whitespace 58..59 " "
            Le 59..61 "<="
            Whitespace 61..62 " "
            Shl 62..64 "<<"
            Whitespace 64..65 " "
            ShlEq 65..68 "<<="
            Whitespace 68..69 " "
            LArrow 69..71 "<-"
            Whitespace 71..72 " "
            Gt 72..73 ">"
            Whitespace 73..74 " "
            Ge 74..76 ">="
            Whitespace 76..77 " "
            Shr 77..79 ">>"
            Whitespace 79..80 " "
            ShrEq 80..83 ">>="
            Whitespace 83..84 " "
            Minus 84..85 "-"
            Whitespace 85..86 " "
            MinusEq 86..88 "-="
            Whitespace 88..89 " "
            RArrow 89..91 "->"
            Whitespace 91..92 " "
            And 92..93 "&"
            Whitespace 93..94 " "
            AndAnd 94..96 "&&"
            Whitespace 96..97 " "
            AndEq 97..99 "&="
            Whitespace 99..100 " "
            Or 100..101 "|"
            Whitespace 101..102 " "
            OrOr 102..104 "||"
            Whitespace 104..105 " "
            OrEq 105..107 "|="
            Whitespace 107..108 " "
            Plus 108..109 "+"
            Whitespace 109..110 " "
            PlusEq 110..112 "+="
            Whitespace 112..113 " "
            Star 113..114 "*"
            Whitespace 114..115 " "
            StarEq 115..117 "*="
            Whitespace 117..118 " "
            Slash 118..119 "/"
            Whitespace 119..120 " "
            SlashEq 120..122 "/="
            Whitespace 122..123 " "
            Caret 123..124 "^"
            Whitespace 124..125 " "
            CaretEq 125..127 "^="
            Whitespace 127..128 " "
            Percent 128..129 "%"
            Whitespace 129..130 " "
            PercentEq 130..132 "%="
        "##]],
    );
    check(
        "a<-1 a<=b a<<=b x->y a..=b a...b ::<>",
        expect![[r#"
        Ident 0..1 "a"
        LArrow 1..3 "<-"
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 3..4 "1"
        Whitespace 4..5 " "
        Ident 5..6 "a"
        Le 6..8 "<="
        Ident 8..9 "b"
        Whitespace 9..10 " "
        Ident 10..11 "a"
        ShlEq 11..14 "<<="
        Ident 14..15 "b"
        Whitespace 15..16 " "
        Ident 16..17 "x"
        RArrow 17..19 "->"
        Ident 19..20 "y"
        Whitespace 20..21 " "
        Ident 21..22 "a"
        DotDotEq 22..25 "..="
        Ident 25..26 "b"
        Whitespace 26..27 " "
        Ident 27..28 "a"
        DotDotDot 28..31 "..."
        Ident 31..32 "b"
        Whitespace 32..33 " "
        PathSep 33..35 "::"
        Lt 35..36 "<"
        Gt 36..37 ">"
    "#]],
    );
}

#[test]
fn integer_literals() {
    check(
        "0 010 1_000 0xff 0xFF_u8 0o17 0b1010 5i64 7usize 0x 0b 0b102 1foo 0xffusize",
        expect![[r#"
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 0..1 "0"
        Whitespace 1..2 " "
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 3 } 2..5 "010"
        Whitespace 5..6 " "
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 5 } 6..11 "1_000"
        Whitespace 11..12 " "
        Literal { kind: Int { base: Hexadecimal, empty_int: false }, suffix_start: 4 } 12..16 "0xff"
        Whitespace 16..17 " "
        Literal { kind: Int { base: Hexadecimal, empty_int: false }, suffix_start: 5 } 17..24 "0xFF_u8"
        Whitespace 24..25 " "
        Literal { kind: Int { base: Octal, empty_int: false }, suffix_start: 4 } 25..29 "0o17"
        Whitespace 29..30 " "
        Literal { kind: Int { base: Binary, empty_int: false }, suffix_start: 6 } 30..36 "0b1010"
        Whitespace 36..37 " "
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 37..41 "5i64"
        Whitespace 41..42 " "
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 42..48 "7usize"
        Whitespace 48..49 " "
        Literal { kind: Int { base: Hexadecimal, empty_int: true }, suffix_start: 2 } 49..51 "0x"
        Whitespace 51..52 " "
        Literal { kind: Int { base: Binary, empty_int: true }, suffix_start: 2 } 52..54 "0b"
        Whitespace 54..55 " "
        Literal { kind: Int { base: Binary, empty_int: false }, suffix_start: 5 } 55..60 "0b102"
        Whitespace 60..61 " "
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 61..65 "1foo"
        Whitespace 65..66 " "
        Literal { kind: Int { base: Hexadecimal, empty_int: false }, suffix_start: 4 } 66..75 "0xffusize"
    "#]],
    );
}

#[test]
fn float_literals() {
    check(
        "1.5 1e3 1E+3 2.5e-3 1e 1.foo 1..2 1.0f32 2f64 0x1.5 x.0.1",
        expect![[r#"
        Literal { kind: Float { base: Decimal, empty_exponent: false }, suffix_start: 3 } 0..3 "1.5"
        Whitespace 3..4 " "
        Literal { kind: Float { base: Decimal, empty_exponent: false }, suffix_start: 3 } 4..7 "1e3"
        Whitespace 7..8 " "
        Literal { kind: Float { base: Decimal, empty_exponent: false }, suffix_start: 4 } 8..12 "1E+3"
        Whitespace 12..13 " "
        Literal { kind: Float { base: Decimal, empty_exponent: false }, suffix_start: 6 } 13..19 "2.5e-3"
        Whitespace 19..20 " "
        Literal { kind: Float { base: Decimal, empty_exponent: true }, suffix_start: 2 } 20..22 "1e"
        Whitespace 22..23 " "
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 23..24 "1"
        Dot 24..25 "."
        Ident 25..28 "foo"
        Whitespace 28..29 " "
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 29..30 "1"
        DotDot 30..32 ".."
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 32..33 "2"
        Whitespace 33..34 " "
        Literal { kind: Float { base: Decimal, empty_exponent: false }, suffix_start: 3 } 34..40 "1.0f32"
        Whitespace 40..41 " "
        Literal { kind: Int { base: Decimal, empty_int: false }, suffix_start: 1 } 41..45 "2f64"
        Whitespace 45..46 " "
        Literal { kind: Float { base: Hexadecimal, empty_exponent: false }, suffix_start: 5 } 46..51 "0x1.5"
        Whitespace 51..52 " "
        Ident 52..53 "x"
        Dot 53..54 "."
        Literal { kind: Float { base: Decimal, empty_exponent: false }, suffix_start: 3 } 54..57 "0.1"
    "#]],
    );
}

#[test]
fn string_and_char_literals() {
    check(
        r##""abc" "a\"b\\" "multi
line" r"raw" r#"ra"w"# br"x" b"x" c"x" cr"x" 'a' '\n' '\'' b'x' 'ab' "x"suffix"##,
        expect![[r##"
    Literal { kind: Str { terminated: true }, suffix_start: 5 } 0..5 "\"abc\""
    Whitespace 5..6 " "
    Literal { kind: Str { terminated: true }, suffix_start: 8 } 6..14 "\"a\\\"b\\\\\""
    Whitespace 14..15 " "
    Literal { kind: Str { terminated: true }, suffix_start: 12 } 15..27 "\"multi\nline\""
    Whitespace 27..28 " "
    Literal { kind: RawStr { terminated: true }, suffix_start: 6 } 28..34 "r\"raw\""
    Whitespace 34..35 " "
    Literal { kind: RawStr { terminated: true }, suffix_start: 9 } 35..44 "r#\"ra\"w\"#"
    Whitespace 44..45 " "
    Literal { kind: RawByteStr { terminated: true }, suffix_start: 5 } 45..50 "br\"x\""
    Whitespace 50..51 " "
    Literal { kind: ByteStr { terminated: true }, suffix_start: 4 } 51..55 "b\"x\""
    Whitespace 55..56 " "
    Literal { kind: CStr { terminated: true }, suffix_start: 4 } 56..60 "c\"x\""
    Whitespace 60..61 " "
    Literal { kind: RawCStr { terminated: true }, suffix_start: 5 } 61..66 "cr\"x\""
    Whitespace 66..67 " "
    Literal { kind: Char { terminated: true }, suffix_start: 3 } 67..70 "'a'"
    Whitespace 70..71 " "
    Literal { kind: Char { terminated: true }, suffix_start: 4 } 71..75 "'\\n'"
    Whitespace 75..76 " "
    Literal { kind: Char { terminated: true }, suffix_start: 4 } 76..80 "'\\''"
    Whitespace 80..81 " "
    Literal { kind: Byte { terminated: true }, suffix_start: 4 } 81..85 "b'x'"
    Whitespace 85..86 " "
    Literal { kind: Char { terminated: true }, suffix_start: 4 } 86..90 "'ab'"
    Whitespace 90..91 " "
    Literal { kind: Str { terminated: true }, suffix_start: 3 } 91..100 "\"x\"suffix"
"##]],
    );
    check(
        r#""unterminated"#,
        expect![[r#"
        Literal { kind: Str { terminated: false }, suffix_start: 13 } 0..13 "\"unterminated"
    "#]],
    );
    check(
        r###"r#"unterminated"###,
        expect![[r#"
        Literal { kind: RawStr { terminated: false }, suffix_start: 15 } 0..15 "r#\"unterminated"
    "#]],
    );
    check(
        "'a",
        expect![[r#"
        Lifetime { starts_with_number: false } 0..2 "'a"
    "#]],
    );
    check(
        "'\\",
        expect![[r#"
        Literal { kind: Char { terminated: false }, suffix_start: 2 } 0..2 "'\\"
    "#]],
    );
}

#[test]
fn lifetimes() {
    check(
        "'a 'outer: '1x 'r#x '_",
        expect![[r#"
        Lifetime { starts_with_number: false } 0..2 "'a"
        Whitespace 2..3 " "
        Lifetime { starts_with_number: false } 3..9 "'outer"
        Colon 9..10 ":"
        Whitespace 10..11 " "
        Lifetime { starts_with_number: true } 11..14 "'1x"
        Whitespace 14..15 " "
        RawLifetime 15..19 "'r#x"
        Whitespace 19..20 " "
        Lifetime { starts_with_number: false } 20..22 "'_"
    "#]],
    );
}

#[test]
fn comments() {
    check(
        "// plain\n/// outer\n//// plain\n//! inner\n/* plain */ /** outer */ /*! inner */ /**/ /***/ /*** x */ /* a /* nested */ b */",
        expect![[r#"
            LineComment { doc_style: None } 0..8 "// plain"
            Whitespace 8..9 "\n"
            LineComment { doc_style: Some(Outer) } 9..18 "/// outer"
            Whitespace 18..19 "\n"
            LineComment { doc_style: None } 19..29 "//// plain"
            Whitespace 29..30 "\n"
            LineComment { doc_style: Some(Inner) } 30..39 "//! inner"
            Whitespace 39..40 "\n"
            BlockComment { doc_style: None, terminated: true } 40..51 "/* plain */"
            Whitespace 51..52 " "
            BlockComment { doc_style: Some(Outer), terminated: true } 52..64 "/** outer */"
            Whitespace 64..65 " "
            BlockComment { doc_style: Some(Inner), terminated: true } 65..77 "/*! inner */"
            Whitespace 77..78 " "
            BlockComment { doc_style: None, terminated: true } 78..82 "/**/"
            Whitespace 82..83 " "
            BlockComment { doc_style: None, terminated: true } 83..88 "/***/"
            Whitespace 88..89 " "
            BlockComment { doc_style: None, terminated: true } 89..98 "/*** x */"
            Whitespace 98..99 " "
            BlockComment { doc_style: None, terminated: true } 99..121 "/* a /* nested */ b */"
        "#]],
    );
    check(
        "/* unterminated /* nested */",
        expect![[r#"
        BlockComment { doc_style: None, terminated: false } 0..28 "/* unterminated /* nested */"
    "#]],
    );
    check(
        "///",
        expect![[r#"
        LineComment { doc_style: Some(Outer) } 0..3 "///"
    "#]],
    );
    check(
        "//",
        expect![[r#"
        LineComment { doc_style: None } 0..2 "//"
    "#]],
    );
}

#[test]
fn unknown_and_odd_input() {
    check(
        "\0 € \\ 😀 \u{FEFF}x \u{2028} foo#bar foo\"s\"",
        expect![[r##"
        Unknown 0..1 "\0"
        Whitespace 1..2 " "
        Unknown 2..5 "€"
        Whitespace 5..6 " "
        Unknown 6..7 "\\"
        Whitespace 7..8 " "
        Unknown 8..12 "😀"
        Whitespace 12..13 " "
        Unknown 13..16 "\u{feff}"
        Ident 16..17 "x"
        Whitespace 17..22 " \u{2028} "
        UnknownPrefix 22..25 "foo"
        Pound 25..26 "#"
        Ident 26..29 "bar"
        Whitespace 29..30 " "
        UnknownPrefix 30..33 "foo"
        Literal { kind: Str { terminated: true }, suffix_start: 3 } 33..36 "\"s\""
    "##]],
    );
    check(
        "\u{FEFF}fn",
        expect![[r#"
        Whitespace 0..3 "\u{feff}"
        Keyword(fn) 3..5 "fn"
    "#]],
    );
    check("", expect![[""]]);
}

//! Diagnostics: what every stage reports instead of failing.
//!
//! Stages that work on one item report spans relative to that item (`file: None`); the
//! driver anchors them ([`Diagnostic::anchor`]) to the item's file and offset before
//! rendering. This keeps cached per-item results independent of the item's position.

use crate::span::{FileId, Span};

#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub enum Level {
    Error,
    Warning,
}

#[derive(serde::Serialize, serde::Deserialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// `None` while the span is relative to the item being processed.
    pub file: Option<FileId>,
    pub span: Span,
    /// May be empty.
    pub message: String,
}

#[derive(serde::Serialize, Clone, Debug, PartialEq, Eq, Hash)]
pub struct Diagnostic {
    pub level: Level,
    /// rustc's error code where rustc has one (`"E0308"`), for reference only.
    pub code: Option<&'static str>,
    /// The main message, worded as rustc words it (`mismatched types`); Rill-only
    /// restrictions start with `unsupported: `, implementation limits name the limit.
    pub message: String,
    /// The first label is the primary one.
    pub labels: Vec<Label>,
    /// `note: …` / `help: …` lines, rendered after the snippet.
    pub notes: Vec<String>,
}

impl Diagnostic {
    pub fn error(message: impl Into<String>, span: Span) -> Diagnostic {
        Diagnostic {
            level: Level::Error,
            code: None,
            message: message.into(),
            labels: vec![Label {
                file: None,
                span,
                message: String::new(),
            }],
            notes: Vec::new(),
        }
    }

    /// An error about the program as a whole (no source position).
    pub fn error_no_span(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            level: Level::Error,
            code: None,
            message: message.into(),
            labels: Vec::new(),
            notes: Vec::new(),
        }
    }

    pub fn warning(message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            level: Level::Warning,
            ..Diagnostic::error_no_span(message)
        }
    }

    pub fn unsupported(what: impl std::fmt::Display, span: Span) -> Diagnostic {
        Diagnostic::error(format!("unsupported: {what}"), span)
    }

    /// Sets rustc's error code, one of [`ERROR_CODES`].
    pub fn with_code(mut self, code: &'static str) -> Diagnostic {
        self.code = Some(code);
        self
    }

    /// Sets the message of the primary label.
    pub fn with_label_message(mut self, message: impl Into<String>) -> Diagnostic {
        if let Some(l) = self.labels.first_mut() {
            l.message = message.into();
        }
        self
    }

    pub fn with_secondary(mut self, span: Span, message: impl Into<String>) -> Diagnostic {
        self.labels.push(Label {
            file: None,
            span,
            message: message.into(),
        });
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// Makes relative labels absolute: they were relative to an item starting at byte
    /// `offset` of `file`.
    pub fn anchor(mut self, file: FileId, offset: u32) -> Diagnostic {
        for l in &mut self.labels {
            if l.file.is_none() {
                l.file = Some(file);
                l.span = l.span.shift(offset);
            }
        }
        self
    }

    pub fn is_error(&self) -> bool {
        self.level == Level::Error
    }
}

/// Renders diagnostics as rustc does: `error[E0308]: message`, ` --> file:line:col`, and a
/// source snippet with carets under each label.
pub fn render(diags: &[Diagnostic], sources: &crate::span::SourceMap, color: bool) -> String {
    use annotate_snippets::{Level as ALevel, Renderer, Snippet};

    let renderer = if color {
        Renderer::styled()
    } else {
        Renderer::plain()
    };
    let mut out = String::new();
    for d in diags {
        let level = match d.level {
            Level::Error => ALevel::Error,
            Level::Warning => ALevel::Warning,
        };
        let mut message = level.title(&d.message);
        if let Some(code) = d.code {
            message = message.id(code);
        }
        // One snippet per file, in order of first appearance; the primary label first.
        let mut files: Vec<FileId> = Vec::new();
        for l in &d.labels {
            if let Some(f) = l.file {
                if (f.0 as usize) < sources.files.len() && !files.contains(&f) {
                    files.push(f);
                }
            }
        }
        let paths: Vec<String> = files
            .iter()
            .map(|&f| sources.get(f).path.display().to_string())
            .collect();
        for (i, &f) in files.iter().enumerate() {
            let file = sources.get(f);
            let text: &str = &file.text;
            let mut snippet = Snippet::source(text)
                .line_start(1)
                .origin(&paths[i])
                .fold(true);
            for (j, l) in d.labels.iter().enumerate() {
                if l.file != Some(f) {
                    continue;
                }
                let range = visible_range(text, l.span);
                // Secondary labels are underlined with `-` and carry no level prefix, as in rustc.
                let annotation_level = if j == 0 { level } else { ALevel::Warning };
                snippet = snippet.annotation(annotation_level.span(range).label(&l.message));
            }
            message = message.snippet(snippet);
        }
        for note in &d.notes {
            let (lvl, text) = match note.strip_prefix("help: ") {
                Some(rest) => (ALevel::Help, rest),
                None => (ALevel::Note, note.strip_prefix("note: ").unwrap_or(note)),
            };
            message = message.footer(lvl.title(text));
        }
        out.push_str(&renderer.render(message).to_string());
        out.push_str("\n\n");
    }
    out
}

/// A byte range that the renderer can underline: clamped to the text, on character
/// boundaries, and at least one character wide where the text allows.
fn visible_range(text: &str, span: Span) -> std::ops::Range<usize> {
    let len = text.len();
    let mut lo = (span.lo as usize).min(len);
    let mut hi = (span.hi as usize).clamp(lo, len);
    while !text.is_char_boundary(lo) {
        lo -= 1;
    }
    while !text.is_char_boundary(hi) {
        hi += 1;
    }
    if lo == hi {
        if let Some(c) = text[lo..].chars().next() {
            if c != '\n' {
                hi = lo + c.len_utf8();
            }
        }
    }
    lo..hi
}

/// `file:line:col: error: message` — one line per diagnostic, for tests and tools.
pub fn render_short(diags: &[Diagnostic], sources: &crate::span::SourceMap) -> String {
    let mut out = String::new();
    for d in diags {
        let level = match d.level {
            Level::Error => "error",
            Level::Warning => "warning",
        };
        match d.labels.first().and_then(|l| l.file.map(|f| (f, l.span))) {
            Some((f, span)) if (f.0 as usize) < sources.files.len() => {
                let file = sources.get(f);
                let (line, col) = file.line_col(span.lo);
                out.push_str(&format!("{}:{line}:{col}: ", file.path.display()));
            }
            _ => {}
        }
        match d.code {
            Some(code) => out.push_str(&format!("{level}[{code}]: {}\n", d.message)),
            None => out.push_str(&format!("{level}: {}\n", d.message)),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::span::{SourceFile, SourceMap};
    use expect_test::expect;
    use std::sync::Arc;

    #[test]
    fn renders_like_rustc() {
        let mut sources = SourceMap::default();
        let text = "fn main() {\n    let x: i32 = 5i64;\n}\n";
        let file = sources.add(SourceFile::new("src/main.rs".into(), Arc::from(text)));
        // Spans relative to an item at offset 0, then anchored.
        let d = Diagnostic::error("mismatched types", Span::new(29, 33))
            .with_code("E0308")
            .with_label_message("expected `i32`, found `i64`")
            .with_secondary(Span::new(23, 26), "expected due to this")
            .with_note("help: change the type of the numeric literal from `i64` to `i32`")
            .anchor(file, 0);
        expect![[r#"
            error[E0308]: mismatched types
             --> src/main.rs:2:18
              |
            2 |     let x: i32 = 5i64;
              |            ---   ^^^^ expected `i32`, found `i64`
              |            |
              |            expected due to this
              |
              = help: change the type of the numeric literal from `i64` to `i32`

        "#]]
        .assert_eq(&render(std::slice::from_ref(&d), &sources, false));
        expect![[r#"
            src/main.rs:2:18: error[E0308]: mismatched types
        "#]]
        .assert_eq(&render_short(&[d], &sources));
    }

    #[test]
    fn empty_and_out_of_range_spans_do_not_panic() {
        let mut sources = SourceMap::default();
        let file = sources.add(SourceFile::new("a.rs".into(), Arc::from("fn é() {}")));
        for (lo, hi) in [(0, 0), (4, 4), (3, 5), (9, 9), (50, 60), (5, 2)] {
            let d = Diagnostic::error("x", Span { lo, hi }).anchor(file, 0);
            let _ = render(&[d], &sources, false);
        }
    }
}

/// Every error code the compiler emits, sorted: a [`Diagnostic::with_code`] argument must
/// be one of these (a test checks that every code written in the workspace's sources is
/// here, and that every code here is written somewhere). Decoding a diagnostic takes its
/// code from this table, so a decoded diagnostic keeps a `&'static str` without any
/// global table growing at run time.
pub const ERROR_CODES: &[&str] = &[
    "E0005", "E0015", "E0054", "E0061", "E0062", "E0063", "E0067", "E0069", "E0070", "E0071",
    "E0072", "E0080", "E0124", "E0223", "E0252", "E0255", "E0268", "E0277", "E0282", "E0308",
    "E0317", "E0364", "E0365", "E0368", "E0369", "E0384", "E0391", "E0415", "E0422", "E0423",
    "E0424", "E0425", "E0426", "E0428", "E0429", "E0432", "E0433", "E0435", "E0451", "E0560",
    "E0571", "E0572", "E0573", "E0574", "E0580", "E0583", "E0585", "E0590", "E0594", "E0599",
    "E0600", "E0601", "E0603", "E0605", "E0608", "E0609", "E0610", "E0616", "E0618", "E0748",
    "E0753", "E0758", "E0761", "E0762", "E0763", "E0765", "E0766", "E0767", "E0768",
];

/// The entry of [`ERROR_CODES`] equal to `code`, if there is one.
pub fn known_code(code: &str) -> Option<&'static str> {
    ERROR_CODES
        .binary_search(&code)
        .ok()
        .map(|i| ERROR_CODES[i])
}

/// Deserializing a diagnostic: its error code is read as a string and looked up in
/// [`ERROR_CODES`]; a code not there (from a damaged or foreign cache) is a decode error.
mod error_code {
    use super::{known_code, Diagnostic, Label, Level};

    /// An error code of [`super::ERROR_CODES`], decoded from a string.
    struct KnownCode(&'static str);

    impl<'de> serde::Deserialize<'de> for KnownCode {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<KnownCode, D::Error> {
            let code = <std::borrow::Cow<'de, str>>::deserialize(d)?;
            match known_code(&code) {
                Some(c) => Ok(KnownCode(c)),
                None => Err(serde::de::Error::custom("unknown error code")),
            }
        }
    }

    #[derive(serde::Deserialize)]
    struct DiagnosticData {
        level: Level,
        code: Option<KnownCode>,
        message: String,
        labels: Vec<Label>,
        notes: Vec<String>,
    }

    impl<'de> serde::Deserialize<'de> for Diagnostic {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Diagnostic, D::Error> {
            let d = DiagnosticData::deserialize(d)?;
            Ok(Diagnostic {
                level: d.level,
                code: d.code.map(|c| c.0),
                message: d.message,
                labels: d.labels,
                notes: d.notes,
            })
        }
    }

    #[cfg(test)]
    mod tests {
        use super::super::{known_code, ERROR_CODES};
        use super::KnownCode;
        use serde::de::value::{Error, StrDeserializer};
        use serde::de::IntoDeserializer;
        use serde::Deserialize;
        use std::collections::BTreeSet;
        use std::path::Path;

        fn decode(code: &str) -> Result<&'static str, Error> {
            let d: StrDeserializer<'_, Error> = code.into_deserializer();
            KnownCode::deserialize(d).map(|c| c.0)
        }

        #[test]
        fn decodes_known_codes_and_rejects_others() {
            assert!(
                ERROR_CODES.windows(2).all(|w| w[0] < w[1]),
                "sorted, no repeats"
            );
            for &c in ERROR_CODES {
                assert_eq!(decode(c).ok(), Some(c));
                assert_eq!(known_code(c), Some(c));
            }
            for bad in ["", "E030", "E0308 ", "e0308", "E9999", "EEEEEEEEEEEEEEEEE"] {
                assert!(decode(bad).is_err(), "{bad:?}");
            }
        }

        /// Every string literal of the form `"E` + four digits in the `.rs` files under
        /// `dir` (every crate of the workspace, however deeply nested, but not `target`
        /// or test directories), except `skip`.
        fn codes_in(dir: &Path, skip: &Path, found: &mut BTreeSet<String>) {
            let Ok(entries) = std::fs::read_dir(dir) else {
                return;
            };
            for e in entries.flatten() {
                let path = e.path();
                if path.is_dir() {
                    let name = e.file_name();
                    if name != "target" && name != ".git" && name != "tests" {
                        codes_in(&path, skip, found);
                    }
                } else if path.extension().is_some_and(|x| x == "rs") && path != skip {
                    let text = std::fs::read_to_string(&path).unwrap_or_default();
                    let b = text.as_bytes();
                    for i in 0..b.len().saturating_sub(6) {
                        if b[i] == b'"'
                            && b[i + 1] == b'E'
                            && b[i + 2..i + 6].iter().all(u8::is_ascii_digit)
                            && b[i + 6] == b'"'
                        {
                            found.insert(text[i + 1..i + 6].to_string());
                        }
                    }
                }
            }
        }

        /// The table lists exactly the codes written in the sources of the workspace's
        /// crates (every code is a literal: `with_code("E0308")`, or a literal chosen by
        /// a `match`).
        #[test]
        fn table_lists_every_code_in_the_sources() {
            let krate = Path::new(env!("CARGO_MANIFEST_DIR"));
            let this = krate.join("src").join("diag.rs");
            let mut found = BTreeSet::new();
            let root = krate.parent().expect("the workspace root");
            codes_in(root, &this, &mut found);
            assert!(
                found.contains("E0308"),
                "the scan finds the frontend's codes"
            );
            let table: BTreeSet<String> = ERROR_CODES.iter().map(|c| c.to_string()).collect();
            let missing: Vec<_> = found.difference(&table).collect();
            let unused: Vec<_> = table.difference(&found).collect();
            assert!(
                missing.is_empty(),
                "codes missing from ERROR_CODES: {missing:?}"
            );
            assert!(
                unused.is_empty(),
                "codes in ERROR_CODES never emitted: {unused:?}"
            );
        }
    }
}

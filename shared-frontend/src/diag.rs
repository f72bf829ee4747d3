//! Diagnostics: what every stage reports instead of failing.
//!
//! Stages that work on one item report spans relative to that item (`file: None`); the
//! driver anchors them ([`Diagnostic::anchor`]) to the item's file and offset before
//! rendering. This keeps cached per-item results independent of the item's position.

use crate::span::{FileId, Span};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    Error,
    Warning,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Label {
    /// `None` while the span is relative to the item being processed.
    pub file: Option<FileId>,
    pub span: Span,
    /// May be empty.
    pub message: String,
}

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
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

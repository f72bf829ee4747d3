//! Byte spans and source files.
//!
//! Spans inside an item are stored *relative to the item's first byte*, so that an edit
//! above an item leaves its syntax tree, and everything computed from it, unchanged
//! (DESIGN.md invariant 5). Absolute positions are recovered only when a diagnostic is
//! rendered: `absolute = item.offset + relative`.

use std::path::PathBuf;
use std::sync::Arc;

/// A half-open byte range `lo..hi`, relative to an anchor (an item, or a file).
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, Default, PartialEq, Eq, Hash,
)]
pub struct Span {
    pub lo: u32,
    pub hi: u32,
}

impl Span {
    pub const DUMMY: Span = Span { lo: 0, hi: 0 };

    pub fn new(lo: u32, hi: u32) -> Span {
        Span { lo, hi }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            lo: self.lo.min(other.lo),
            hi: self.hi.max(other.hi),
        }
    }

    pub fn shift(self, by: u32) -> Span {
        Span {
            lo: self.lo.saturating_add(by),
            hi: self.hi.saturating_add(by),
        }
    }

    /// The length in bytes; 0 for an inverted span (`lo > hi`).
    pub fn len(self) -> u32 {
        self.hi.saturating_sub(self.lo)
    }

    pub fn is_empty(self) -> bool {
        self.lo == self.hi
    }
}

/// Index of a file in a [`SourceMap`]. Valid within one run only: on disk, files are
/// named by path.
#[derive(
    serde::Serialize, serde::Deserialize, Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord,
)]
pub struct FileId(pub u32);

/// One source file of a program.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The path as it is shown in diagnostics (as given for the root, joined for modules).
    pub path: PathBuf,
    pub text: Arc<str>,
    /// Byte offset of the start of every line, built on first use (only diagnostics and
    /// statistics need it).
    line_starts: std::sync::OnceLock<Vec<u32>>,
}

impl SourceFile {
    pub fn new(path: PathBuf, text: Arc<str>) -> SourceFile {
        SourceFile {
            path,
            text,
            line_starts: std::sync::OnceLock::new(),
        }
    }

    fn line_starts(&self) -> &[u32] {
        self.line_starts.get_or_init(|| {
            let mut line_starts = vec![0];
            line_starts.extend(
                self.text
                    .bytes()
                    .enumerate()
                    .filter(|&(_, b)| b == b'\n')
                    .map(|(i, _)| i as u32 + 1),
            );
            line_starts
        })
    }

    /// 1-based line and column (in characters) of a byte offset. An offset past the end
    /// of the text is read as the end.
    pub fn line_col(&self, offset: u32) -> (usize, usize) {
        let offset = offset.min(self.text.len() as u32);
        let line_starts = self.line_starts();
        let line = match line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = line_starts[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() + 1;
        (line + 1, col)
    }

    pub fn line_count(&self) -> usize {
        self.line_starts().len()
    }
}

/// All files of one program, in the order they were loaded (the root first).
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    pub fn add(&mut self, file: SourceFile) -> FileId {
        self.files.push(file);
        FileId(self.files.len() as u32 - 1)
    }

    /// The file `id`. An id this map does not hold (one from another map, or from a
    /// build that stopped before loading the file) gets an empty file named
    /// `<unknown file>`, so that rendering a diagnostic never panics.
    pub fn get(&self, id: FileId) -> &SourceFile {
        match self.files.get(id.0 as usize) {
            Some(file) => file,
            None => unknown_file(),
        }
    }
}

/// The empty stand-in [`SourceMap::get`] returns for an id it does not hold.
fn unknown_file() -> &'static SourceFile {
    static UNKNOWN: std::sync::OnceLock<SourceFile> = std::sync::OnceLock::new();
    UNKNOWN.get_or_init(|| SourceFile::new("<unknown file>".into(), Arc::from("")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_from_one() {
        let f = SourceFile::new("m.rs".into(), Arc::from("ab\ncd\n\né x"));
        assert_eq!(f.line_col(0), (1, 1));
        assert_eq!(f.line_col(1), (1, 2));
        assert_eq!(f.line_col(3), (2, 1));
        assert_eq!(f.line_col(6), (3, 1));
        assert_eq!(f.line_col(10), (4, 3));
    }

    #[test]
    fn positions_out_of_range_do_not_panic() {
        let f = SourceFile::new("m.rs".into(), Arc::from("ab\né"));
        // Past the end: the end of the text.
        assert_eq!(f.line_col(6), (2, 2));
        assert_eq!(f.line_col(u32::MAX), (2, 2));
        // Inside a multi-byte character: the character's start.
        assert_eq!(f.line_col(4), (2, 1));
        let empty = SourceFile::new("e.rs".into(), Arc::from(""));
        assert_eq!(empty.line_col(7), (1, 1));
        assert_eq!(Span::new(5, 2).len(), 0);
        assert_eq!(Span::new(2, 5).len(), 3);
    }

    #[test]
    fn unknown_file_ids_get_an_empty_file() {
        let mut map = SourceMap::default();
        let unknown = map.get(FileId(0));
        assert_eq!(unknown.path, std::path::Path::new("<unknown file>"));
        assert_eq!(&*unknown.text, "");
        assert_eq!(unknown.line_col(3), (1, 1));
        let id = map.add(SourceFile::new("m.rs".into(), Arc::from("x")));
        assert_eq!(map.get(id).path, std::path::Path::new("m.rs"));
        assert_eq!(
            map.get(FileId(u32::MAX)).path,
            std::path::Path::new("<unknown file>")
        );
    }
}

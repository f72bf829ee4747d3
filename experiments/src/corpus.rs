//! The hand-written corpus (`experiments/corpus/`): programs with expectations produced by
//! rustc (`bless.sh`), ill-formed programs with `//~ ERROR` annotations, and programs
//! outside the subset.

use std::path::{Path, PathBuf};

/// Where the corpus lives in the source tree.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// One program: `NAME.rs`, or `NAME/main.rs` with its module files.
#[derive(Clone, Debug)]
pub struct CorpusProgram {
    pub name: String,
    /// The root file.
    pub root: PathBuf,
}

/// What rustc did with a `run/` program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Expectation {
    pub stdout: Vec<u8>,
    pub exit_code: i32,
}

/// One `//~ ERROR substring` annotation: an error expected at `line` (1-based) whose
/// message contains `message`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExpectedError {
    pub file: PathBuf,
    pub line: usize,
    pub message: String,
}

/// The programs of one corpus directory (`run`, `fail` or `unsupported`), sorted by name.
pub fn programs(kind: &str) -> Vec<CorpusProgram> {
    let dir = corpus_dir().join(kind);
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return out;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = entry.file_name().to_string_lossy().into_owned();
        if path.is_dir() && path.join("main.rs").is_file() {
            out.push(CorpusProgram {
                name,
                root: path.join("main.rs"),
            });
        } else if let Some(stem) = name.strip_suffix(".rs") {
            out.push(CorpusProgram {
                name: stem.to_string(),
                root: path,
            });
        }
    }
    out.sort_by(|a, b| a.name.cmp(&b.name));
    out
}

impl CorpusProgram {
    /// The `.stdout`/`.exit` files next to the program (`run/` only).
    pub fn expectation(&self) -> std::io::Result<Expectation> {
        let base = self.expectation_base();
        let stdout = std::fs::read(base.with_extension("stdout"))?;
        let exit = std::fs::read_to_string(base.with_extension("exit"))?;
        let exit_code = exit.trim().parse().map_err(|_| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("bad exit code `{}`", exit.trim()),
            )
        })?;
        Ok(Expectation { stdout, exit_code })
    }

    fn expectation_base(&self) -> PathBuf {
        if self.root.file_name().is_some_and(|n| n == "main.rs") {
            let dir = self.root.parent().unwrap_or(Path::new("."));
            dir.with_file_name(&self.name)
        } else {
            self.root.with_extension("")
        }
    }

    /// Every source file of the program (the root, and for a directory program every
    /// `.rs` file below it).
    pub fn source_files(&self) -> Vec<PathBuf> {
        if self.root.file_name().is_some_and(|n| n == "main.rs") {
            let mut files = Vec::new();
            collect_rs(self.root.parent().unwrap_or(Path::new(".")), &mut files);
            files.sort();
            files
        } else {
            vec![self.root.clone()]
        }
    }

    /// Lines of source, over all files.
    pub fn lines(&self) -> usize {
        self.source_files()
            .iter()
            .filter_map(|f| std::fs::read_to_string(f).ok())
            .map(|t| t.lines().count())
            .sum()
    }

    /// The `//~ ERROR` annotations of every file (`//~^ ERROR` points one line up per `^`).
    pub fn expected_errors(&self) -> Vec<ExpectedError> {
        let mut out = Vec::new();
        for file in self.source_files() {
            let Ok(text) = std::fs::read_to_string(&file) else {
                continue;
            };
            for (i, line) in text.lines().enumerate() {
                let Some(pos) = line.find("//~") else {
                    continue;
                };
                let rest = &line[pos + 3..];
                // `//~|` annotates the same line as the previous annotation.
                let (rest, previous) = match rest.strip_prefix('|') {
                    Some(r) => (r, out.last().map(|e: &ExpectedError| e.line)),
                    None => (rest, None),
                };
                let carets = rest.chars().take_while(|&c| c == '^').count();
                let rest = rest[carets..].trim_start();
                let Some(message) = rest.strip_prefix("ERROR") else {
                    continue;
                };
                out.push(ExpectedError {
                    file: file.clone(),
                    line: previous.unwrap_or((i + 1).saturating_sub(carets)),
                    message: message.trim().to_string(),
                });
            }
        }
        out
    }
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

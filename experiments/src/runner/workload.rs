//! Workloads: generated programs (deterministic by seed) written into a work directory,
//! and edits applied to them by rewriting only the files that changed, as an editor would.

use std::path::{Path, PathBuf};

use shared_frontend::gen::{self, EditKind, GenConfig, Program};

/// A program on disk: its directory and the program it currently holds.
pub struct OnDisk {
    pub dir: PathBuf,
    pub program: Program,
}

impl OnDisk {
    /// Writes `program` into a fresh `dir` (removing what was there).
    pub fn create(dir: &Path, program: Program) -> Result<OnDisk, String> {
        if dir.exists() {
            std::fs::remove_dir_all(dir)
                .map_err(|e| format!("cannot clear `{}`: {e}", dir.display()))?;
        }
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        program
            .write_to(dir)
            .map_err(|e| format!("cannot write `{}`: {e}", dir.display()))?;
        Ok(OnDisk {
            dir: dir.to_path_buf(),
            program,
        })
    }

    /// The root file (`main.rs`).
    pub fn root(&self) -> PathBuf {
        self.dir.join("main.rs")
    }

    /// Replaces the program, writing only files whose text changed and removing files it
    /// no longer has. Returns how many files were written.
    pub fn replace(&mut self, next: Program) -> Result<usize, String> {
        let mut written = 0;
        for f in &next.files {
            if self.program.file(&f.path) != Some(f.text.as_str()) {
                let path = self.dir.join(&f.path);
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| e.to_string())?;
                }
                std::fs::write(&path, &f.text)
                    .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
                written += 1;
            }
        }
        for f in &self.program.files {
            if next.file(&f.path).is_none() {
                let _ = std::fs::remove_file(self.dir.join(&f.path));
            }
        }
        self.program = next;
        Ok(written)
    }
}

/// The generator's configuration for a program of about `lines` lines.
pub fn config(lines: usize, seed: u64) -> GenConfig {
    GenConfig {
        seed,
        target_lines: lines,
        ..GenConfig::default()
    }
}

/// Generates the program of about `lines` lines for `seed`.
pub fn generate(lines: usize, seed: u64) -> Program {
    gen::generate(&config(lines, seed))
}

/// An edit of `kind` on `p`, trying a few seeds (a kind can be impossible on one choice).
pub fn edit(p: &Program, kind: EditKind, seed: u64) -> Option<gen::Edit> {
    (0..8).find_map(|i| gen::apply_edit(p, kind, seed.wrapping_add(i * 7919)))
}

/// `p` with `text` inserted at the top of its largest file (experiment E5): every item of
/// that file moves down, none changes.
pub fn insert_at_top_of_largest_file(p: &Program, text: &str) -> (Program, String) {
    let mut files = p.files.clone();
    let idx = files
        .iter()
        .enumerate()
        .max_by_key(|(_, f)| f.text.len())
        .map(|(i, _)| i)
        .unwrap_or(0);
    let path = files.get(idx).map(|f| f.path.clone()).unwrap_or_default();
    if let Some(f) = files.get_mut(idx) {
        f.text.insert_str(0, text);
    }
    (Program::from_files(files), path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replace_writes_only_changed_files() {
        let dir = tempfile::tempdir().unwrap();
        let p = generate(2000, 1);
        assert!(p.files.len() > 1);
        let mut disk = OnDisk::create(&dir.path().join("w"), p.clone()).unwrap();
        assert!(disk.root().is_file());
        let e = edit(&p, EditKind::LeafBody, 3).unwrap();
        let n = disk.replace(e.program.clone()).unwrap();
        assert!(n >= 1 && n < p.files.len(), "{n} files written");
        for f in &e.program.files {
            assert_eq!(
                std::fs::read_to_string(disk.dir.join(&f.path)).unwrap(),
                f.text
            );
        }
        let (top, path) = insert_at_top_of_largest_file(&p, "// moved\n");
        assert!(top.file(&path).unwrap().starts_with("// moved\n"));
    }
}

//! Workloads: generated programs (deterministic by seed) written into a work directory,
//! and edits applied to them by rewriting only the files that changed, as an editor would.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rill_gen::{self as gen, EditKind, GenConfig, Program};
use shared_frontend::sema::modules::FileLoader;

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

/// The shape of a generated program: how its lines divide into functions and files.
/// E1, E3 and E6 measure every shape; the other experiments use [`Shape::Default`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Shape {
    /// The generator's defaults: up to 40 functions of about 6 statements per file.
    Default,
    /// Many small functions in many files: up to 40 functions of 1–3 statements per
    /// file, so a program has several times the files of the default shape.
    SmallFns,
    /// Few large functions: up to 8 functions of about 40 statements per file.
    BigFns,
}

impl Shape {
    /// Every shape, the default first.
    pub const ALL: [Shape; 3] = [Shape::Default, Shape::SmallFns, Shape::BigFns];

    /// The name in the `shape` column of the CSVs.
    pub fn name(self) -> &'static str {
        match self {
            Shape::Default => "default",
            Shape::SmallFns => "small-fns",
            Shape::BigFns => "big-fns",
        }
    }

    /// The shape whose [`Shape::name`] is `name`.
    pub fn by_name(name: &str) -> Option<Shape> {
        Shape::ALL.into_iter().find(|s| s.name() == name)
    }

    /// The name as a key suffix of `values.json` (`small_fns`).
    pub fn key(self) -> String {
        self.name().replace('-', "_")
    }

    /// The generator's configuration of this shape for a program of about `lines` lines.
    pub fn config(self, lines: usize, seed: u64) -> GenConfig {
        let base = GenConfig {
            seed,
            target_lines: lines,
            ..GenConfig::default()
        };
        match self {
            Shape::Default => base,
            Shape::SmallFns => GenConfig {
                fns_per_module: 40,
                stmts_per_fn: 2,
                ..base
            },
            Shape::BigFns => GenConfig {
                fns_per_module: 8,
                stmts_per_fn: 40,
                ..base
            },
        }
    }
}

/// The generator's configuration for a program of about `lines` lines (default shape).
pub fn config(lines: usize, seed: u64) -> GenConfig {
    Shape::Default.config(lines, seed)
}

/// Generates the program of about `lines` lines for `seed` (default shape).
pub fn generate(lines: usize, seed: u64) -> Program {
    generate_shaped(Shape::Default, lines, seed)
}

/// Generates the program of `shape` of about `lines` lines for `seed`.
pub fn generate_shaped(shape: Shape, lines: usize, seed: u64) -> Program {
    gen::generate(&shape.config(lines, seed))
}

/// An edit of `kind` on `p`, trying a few seeds (a kind can be impossible on one choice).
pub fn edit(p: &Program, kind: EditKind, seed: u64) -> Option<gen::Edit> {
    (0..8).find_map(|i| gen::apply_edit(p, kind, seed.wrapping_add(i * 7919)))
}

/// The machine code of every function of `p`, by def-path, compiled in this process by
/// the pipeline from memory; `None` if `p` does not compile.
pub fn machine_code(p: &Program) -> Option<BTreeMap<String, Arc<backend::CodeBlob>>> {
    let root = Path::new("/rill-workload");
    let loader = MemLoader {
        files: p
            .files
            .iter()
            .map(|f| (root.join(&f.path), f.text.as_bytes().to_vec()))
            .collect(),
    };
    let compiled = pipeline::compile(&loader, &root.join("main.rs"), pipeline::Until::Image);
    if compiled.has_errors() || compiled.fatal.is_some() || compiled.image.is_none() {
        return None;
    }
    Some(
        compiled
            .blobs
            .into_iter()
            .map(|(_, path, blob)| (path, blob))
            .collect(),
    )
}

/// How many functions' machine code differs between `before` and `after` (added and
/// removed functions count too).
pub fn functions_changed(
    before: &BTreeMap<String, Arc<backend::CodeBlob>>,
    after: &BTreeMap<String, Arc<backend::CodeBlob>>,
) -> usize {
    let changed = after
        .iter()
        .filter(|(k, v)| before.get(*k) != Some(*v))
        .count();
    changed + before.keys().filter(|k| !after.contains_key(*k)).count()
}

/// A program's files in memory.
struct MemLoader {
    files: BTreeMap<PathBuf, Vec<u8>>,
}

impl FileLoader for MemLoader {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        self.files
            .get(path)
            .cloned()
            .ok_or_else(|| std::io::Error::from(std::io::ErrorKind::NotFound))
    }

    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }
}

/// A leaf-body edit of `p` whose machine code differs from `p`'s: the generator's edits
/// of a leaf body sometimes change only a literal that the optimizer folds away (a dead
/// branch of a constant condition, a bit masked off), which leaves the machine code
/// unchanged. Returns the first such edit over a few seeds with the number of functions
/// whose code changed, and the edit of `seed` itself when it changed no code.
pub struct LeafEdits {
    pub changing: Option<(gen::Edit, usize)>,
    pub folded: Option<gen::Edit>,
}

pub fn leaf_edits(p: &Program, seed: u64) -> LeafEdits {
    let mut out = LeafEdits {
        changing: None,
        folded: None,
    };
    let Some(before) = machine_code(p) else {
        return out;
    };
    for i in 0..16u64 {
        let Some(e) = edit(p, EditKind::LeafBody, seed.wrapping_add(i * 104_729)) else {
            continue;
        };
        let Some(after) = machine_code(&e.program) else {
            continue;
        };
        let n = functions_changed(&before, &after);
        if n > 0 {
            out.changing = Some((e, n));
            break;
        }
        if i == 0 {
            out.folded = Some(e);
        }
    }
    out
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
        let leaf = leaf_edits(&p, 3);
        let (e, n) = leaf.changing.expect("a leaf edit that changes code");
        assert_eq!(n, 1, "{}", e.description);
        let code = machine_code(&p).unwrap();
        assert_eq!(functions_changed(&code, &machine_code(&top).unwrap()), 0);
        assert!(top.file(&path).unwrap().starts_with("// moved\n"));
    }

    /// The number of `fn` items of each file of `p`.
    fn fns_per_file(p: &Program) -> Vec<usize> {
        p.files
            .iter()
            .map(|f| {
                f.text
                    .lines()
                    .filter(|l| {
                        let t = l.trim_start();
                        t.starts_with("fn ") || t.starts_with("pub fn ")
                    })
                    .count()
            })
            .collect()
    }

    #[test]
    fn shapes_have_their_structure() {
        let lines = 20_000;
        let shaped: Vec<(Shape, Program)> = Shape::ALL
            .iter()
            .map(|&s| (s, generate_shaped(s, lines, 7)))
            .collect();
        assert_eq!(
            shaped[0].1,
            generate(lines, 7),
            "the default shape is the default"
        );
        let files = |s: Shape| shaped.iter().find(|p| p.0 == s).unwrap().1.files.len();
        let fns =
            |s: Shape| -> Vec<usize> { fns_per_file(&shaped.iter().find(|p| p.0 == s).unwrap().1) };
        for (s, p) in &shaped {
            let n = p.total_lines();
            assert!(n > lines / 2 && n < lines * 2, "{s:?}: {n} lines");
            // The typical file holds the shape's number of functions (a file with inline
            // modules holds theirs as well).
            let mut per_file = fns_per_file(p);
            per_file.sort_unstable();
            let median = per_file[per_file.len() / 2];
            let want = s.config(lines, 7).fns_per_module;
            assert!(median.abs_diff(want) <= 1, "{s:?}: {per_file:?}");
        }
        // Many small functions in many files; few large ones per file.
        assert!(
            files(Shape::SmallFns) >= 2 * files(Shape::Default),
            "{} files against {}",
            files(Shape::SmallFns),
            files(Shape::Default)
        );
        let mean = |v: Vec<usize>| v.iter().sum::<usize>() as f64 / v.len() as f64;
        let lines_per_fn = |s: Shape| {
            let p = &shaped.iter().find(|p| p.0 == s).unwrap().1;
            p.total_lines() as f64 / fns(s).iter().sum::<usize>() as f64
        };
        assert!(
            mean(fns(Shape::SmallFns)) > 20.0,
            "{:?}",
            fns(Shape::SmallFns)
        );
        assert!(mean(fns(Shape::BigFns)) < 16.0, "{:?}", fns(Shape::BigFns));
        assert!(lines_per_fn(Shape::SmallFns) < lines_per_fn(Shape::Default));
        assert!(lines_per_fn(Shape::BigFns) > 3.0 * lines_per_fn(Shape::Default));
    }
}

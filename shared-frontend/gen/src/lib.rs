//! The random program generator: valid programs, edits and ill-formed mutations.
//!
//! [`generate`] builds a structured model of a program (modules, functions, constants,
//! structs, aliases, imports; typed bodies) and renders it to source files. Programs are
//! valid Rill (rustc accepts them with the flags of LANGUAGE.md "The reference
//! implementation"), terminate quickly, print a bounded amount and are deterministic;
//! the same [`GenConfig`] yields byte-identical text on every platform.
//!
//! Because the program keeps its model, [`apply_edit`] and [`edit_history`] can change it
//! meaningfully (E3's edit kinds) and [`mutate_ill_formed`] can break it in ways rustc
//! rejects. Programs made from text ([`Program::from_files`]) carry no model and cannot be
//! edited.
//!
//! Code map: `rng` (the PRNG), `model` (the model and its queries), `body` (statements and
//! expressions), `build` (the program), `consteval` (exact const evaluation), `render`
//! (text), `edits`, `mutations`, `strategies` (proptest); `heap` (the
//! allocator the memory tests count with).

mod body;
mod build;
mod consteval;
mod edits;
pub mod heap;
mod model;
mod mutations;
mod render;
mod rng;
#[cfg(feature = "proptest")]
pub mod strategies;

use std::path::Path;
use std::sync::Arc;

pub use edits::{apply_edit, edit_history, Edit, EditKind};
pub use mutations::{mutate_ill_formed, Mutation, MutationKind};

/// What to generate. Build one with struct update syntax from [`GenConfig::default`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GenConfig {
    pub seed: u64,
    /// The approximate size of the program in lines (from about 50 to 1,000,000).
    pub target_lines: usize,
    /// The number of functions in a module of a large program (small programs use
    /// smaller modules so that they still have several).
    pub fns_per_module: usize,
    /// The average number of statements of a function body.
    pub stmts_per_fn: usize,
    /// The maximum nesting depth of generated expressions.
    pub max_expr_depth: u32,
    /// At most this many calls in `main` (keeps output and run time bounded).
    pub max_main_calls: usize,
    /// End `main` with a deliberate panic (division by zero, index out of bounds or
    /// `i32::MIN / -1`) after printing: the program exits with code 101.
    pub panicking: bool,
    /// Keep the model in the program so that edits and mutations apply.
    pub editable: bool,
}

impl Default for GenConfig {
    fn default() -> GenConfig {
        GenConfig {
            seed: 0,
            target_lines: 500,
            fns_per_module: 40,
            stmts_per_fn: 6,
            max_expr_depth: 3,
            max_main_calls: 48,
            panicking: false,
            editable: true,
        }
    }
}

/// A program: its source files, the root `main.rs` first.
#[derive(Clone)]
pub struct Program {
    pub files: Vec<SourceFile>,
    /// The model the files were rendered from, if the program is editable.
    model: Option<Arc<model::Model>>,
}

/// One source file; `path` is relative to the program directory, `/`-separated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    pub path: String,
    pub text: String,
}

impl Program {
    /// A program made from text; it carries no model, so edits and mutations return
    /// `None` on it.
    pub fn from_files(files: Vec<SourceFile>) -> Program {
        Program { files, model: None }
    }

    /// Writes the files under `dir`, creating directories as needed.
    pub fn write_to(&self, dir: &Path) -> std::io::Result<()> {
        for f in &self.files {
            let path = dir.join(&f.path);
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(path, &f.text)?;
        }
        Ok(())
    }

    pub fn total_lines(&self) -> usize {
        self.files.iter().map(|f| f.text.lines().count()).sum()
    }

    /// The text of the file at `path`, if there is one.
    pub fn file(&self, path: &str) -> Option<&str> {
        self.files
            .iter()
            .find(|f| f.path == path)
            .map(|f| f.text.as_str())
    }

    /// Can edits and mutations be applied?
    pub fn is_editable(&self) -> bool {
        self.model.is_some()
    }

    fn from_model(model: model::Model, keep: bool) -> Program {
        let mods = model.file_modules();
        let render = |m: &model::ModId| SourceFile {
            path: model.file_path(*m),
            text: render::render_file(&model, *m),
        };
        // Files render independently: large programs use a few threads (same text).
        let threads = std::thread::available_parallelism()
            .map_or(1, |n| n.get())
            .min(4);
        let files: Vec<SourceFile> = if mods.len() >= 64 && threads > 1 {
            let chunk = mods.len().div_ceil(threads);
            std::thread::scope(|s| {
                let handles: Vec<_> = mods
                    .chunks(chunk)
                    .map(|c| s.spawn(move || c.iter().map(render).collect::<Vec<_>>()))
                    .collect();
                handles
                    .into_iter()
                    .flat_map(|h| h.join().expect("render thread"))
                    .collect()
            })
        } else {
            mods.iter().map(render).collect()
        };
        Program {
            files,
            model: keep.then(|| Arc::new(model)),
        }
    }
}

impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for file in &self.files {
            writeln!(f, "// ===== {} =====", file.path)?;
            f.write_str(&file.text)?;
        }
        Ok(())
    }
}

impl PartialEq for Program {
    fn eq(&self, other: &Program) -> bool {
        self.files == other.files
    }
}

impl Eq for Program {}

/// Generates a valid program; see the module documentation.
pub fn generate(cfg: &GenConfig) -> Program {
    let model = build::build(cfg);
    Program::from_model(model, cfg.editable)
}

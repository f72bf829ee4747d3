//! The staged pipeline: the classic compiler architecture.
//!
//! Each stage runs over the whole crate before the next one starts — parse all files,
//! build the item tree, resolve every module's scope, collect every signature, evaluate
//! every constant, type-check every body, lower and optimize every function — on flat
//! whole-crate data, with no caching between runs and no hashing beyond what the frontend
//! itself needs. It calls exactly the frontend functions the query providers wrap, so the
//! comparison between the two architectures stays fair.
//!
//! Per-item analyses see other items through [`Tables`], this driver's [`SemaEnv`]: lazily
//! filled whole-crate tables (a signature collected in stage 4 may need a constant's value
//! for an array length before stage 5 runs), with cycle detection.

mod tables;

use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use shared_frontend::diag::Diagnostic;
use shared_frontend::ir::{opt, IrFunction, IrProgram};
use shared_frontend::sema::def::{DefId, DefKind};
use shared_frontend::sema::items::{ItemAst, ItemTree};
use shared_frontend::sema::modules::{load_crate_with, FileLoader, FsLoader, LoadedCrate};
use shared_frontend::sema::recipe::Check;
use shared_frontend::sema::resolve;
use shared_frontend::sema::thir::Thir;
use shared_frontend::sema::{entry, env::SemaEnv, typeck};
use shared_frontend::span::{FileId, SourceMap};
use shared_frontend::syntax::ast::SourceFileAst;
use shared_frontend::syntax::parser;

pub use tables::Tables;

/// How far to go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Until {
    /// Load and parse every file.
    Parse,
    /// Every check: all diagnostics, no code.
    Check,
    /// Optimized IR of every function.
    Ir,
    /// Machine code of every function, linked into an executable image.
    Image,
    /// As `Image`, keeping nothing but the image: each function's IR is freed as soon as
    /// its machine code exists, and the code blobs once linked (`ir` and `blobs` stay
    /// empty). The least memory, for a driver that only runs the program.
    ImageOnly,
}

/// The result of one pipeline run.
#[derive(Default)]
pub struct Compiled {
    pub sources: SourceMap,
    /// The syntax tree of every parsed file, in load order (with `Until::Parse` only: the
    /// later stages release the syntax as soon as they have read it).
    pub asts: Vec<(FileId, Arc<SourceFileAst>)>,
    /// Anchored diagnostics, in the order the stages reported them.
    pub diagnostics: Vec<Diagnostic>,
    /// The program's IR, when it was asked for (`Until::Ir` or `Until::Image`) and there
    /// were no errors.
    pub ir: Option<IrProgram>,
    /// Every function's machine code with its def-path, in IR order (with `Until::Image`).
    pub blobs: Vec<(DefId, String, Arc<backend::CodeBlob>)>,
    /// The linked program (with `Until::Image` or `Until::ImageOnly`, when there were no
    /// errors).
    pub image: Option<backend::Image>,
    /// Wall time of each stage, in milliseconds, in stage order.
    pub phases: Vec<(&'static str, f64)>,
    /// Set when the root file could not be read: the driver's exit code 2.
    pub fatal: Option<String>,
}

impl Compiled {
    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Compiles the program whose root file is `root`, from the file system.
pub fn compile_path(root: &Path, until: Until) -> Compiled {
    compile(&FsLoader, root, until)
}

struct Phases {
    phases: Vec<(&'static str, f64)>,
    last: Instant,
}

impl Phases {
    fn new() -> Phases {
        Phases {
            phases: Vec::new(),
            last: Instant::now(),
        }
    }

    fn done(&mut self, name: &'static str) {
        let now = Instant::now();
        self.phases
            .push((name, (now - self.last).as_secs_f64() * 1e3));
        self.last = now;
    }
}

pub fn compile(loader: &dyn FileLoader, root: &Path, until: Until) -> Compiled {
    let mut phases = Phases::new();
    let mut out = Compiled::default();

    // Stage 1: load and parse every file.
    let mut krate = load_crate_with(loader, root, &parser::parse_file);
    phases.done("parse");
    out.sources = krate.sources.clone();
    out.diagnostics.extend(krate.diagnostics.iter().cloned());
    if krate.root_unreadable {
        out.fatal = krate.diagnostics.first().map(|d| d.message.clone());
        out.phases = phases.phases;
        return out;
    }
    if until == Until::Parse {
        out.asts = krate
            .files
            .iter()
            .map(|f| (f.file, f.ast.clone()))
            .collect();
        out.phases = phases.phases;
        return out;
    }

    // Stage 2: the item tree.
    let tree = ItemTree::build(&krate);
    phases.done("items");
    out.diagnostics.extend(tree.diagnostics.iter().cloned());
    // From here on the item tree is the only holder of the syntax: each item's syntax is
    // freed when the tree releases it (a function's once its body is type-checked).
    for file in &mut krate.files {
        file.ast = Arc::default();
    }

    // Stage 3: every module's scope.
    let resolved = resolve::resolve_crate(&tree);
    phases.done("resolve");
    out.diagnostics.extend(resolved.diagnostics.iter().cloned());

    let mut tables = Tables::new(tree, &resolved);
    // An inline module's syntax holds its items' syntax; nothing reads it once the tree
    // is built.
    for index in 0..tables.tree().defs().len() {
        if tables.tree().defs()[index].kind == DefKind::Mod {
            drop(tables.release_syntax(index));
        }
    }
    let tree = tables.tree();

    // Stage 4: signatures, struct fields, aliases and constant types.
    for def in tree.defs() {
        match def.kind {
            DefKind::Fn => drop(tables.fn_sig(def.id)),
            DefKind::Struct => {
                drop(tables.struct_fields(def.id));
                tables.check_struct(def.id);
            }
            DefKind::TypeAlias => drop(tables.alias_ty(def.id)),
            DefKind::Const => drop(tables.const_ty(def.id)),
            DefKind::Mod => {}
        }
    }
    check_main(&tree, &tables, root, &krate);
    phases.done("collect");

    // Stage 5: every constant, used or not.
    for def in tree.defs() {
        if def.kind == DefKind::Const {
            drop(tables.const_value(def.id));
        }
    }
    phases.done("consteval");

    // Stage 6: every function body. Every signature, struct, alias and constant is known
    // by now, so a function's syntax is read by nothing but its own body's check: it is
    // released, and freed, as soon as that check is done.
    let mut bodies: Vec<(DefId, Arc<Thir>)> = Vec::new();
    for index in 0..tables.tree().defs().len() {
        let def = &tables.tree().defs()[index];
        if def.kind != DefKind::Fn {
            continue;
        }
        let (id, module) = (def.id, def.parent.unwrap_or(tables.tree().root));
        let ItemAst::Fn(ast) = tables.release_syntax(index) else {
            continue;
        };
        let result = typeck::typeck_fn(&tables, id, module, &ast);
        drop(ast);
        tables.report(Check::Typeck, id, result.diagnostics);
        bodies.push((id, result.thir));
    }
    phases.done("typeck");
    let tree = tables.tree();

    out.diagnostics.extend(tables.take_diagnostics());
    if until == Until::Check || out.has_errors() {
        out.phases = phases.phases;
        return out;
    }

    // Stage 7: lowering.
    // Each stage consumes the previous stage's data, so a function's THIR (and then its
    // unoptimized IR) is freed as soon as its successor exists, and the memory is reused.
    let lowered: Vec<IrFunction> = bodies
        .into_iter()
        .map(|(def, thir)| {
            let name = tree.def(def).map(|d| d.path.text()).unwrap_or_default();
            shared_frontend::ir::lower::lower_fn(&tables, def, name, &thir)
        })
        .collect();
    phases.done("lower");

    // Stage 8: per-function optimizations.
    let functions: Vec<Arc<IrFunction>> = lowered
        .into_iter()
        .map(|f| Arc::new(opt::optimize_in_place(f)))
        .collect();
    phases.done("optimize");

    let main = main_def(tree, &tables).unwrap_or(tree.root);
    if until < Until::Image {
        out.ir = Some(IrProgram { functions, main });
        out.phases = phases.phases;
        return out;
    }
    // Code generation and linking read the IR only: the item tree, the scopes and the
    // tables are freed first.
    drop(tables);
    drop(resolved);

    // Stage 9: machine code, one function at a time.
    let (blobs, kept): (Vec<(DefId, Arc<backend::CodeBlob>)>, _) = if until == Until::Image {
        out.blobs = functions
            .iter()
            .map(|f| (f.def, f.name.clone(), Arc::new(backend::codegen(f))))
            .collect();
        let blobs = out.blobs.iter().map(|(d, _, b)| (*d, b.clone())).collect();
        (blobs, Some(functions))
    } else {
        // Each function's IR is freed as soon as its code exists.
        let blobs = functions
            .into_iter()
            .map(|f| (f.def, Arc::new(backend::codegen(&f))))
            .collect();
        (blobs, None)
    };
    phases.done("codegen");
    // Stage 10: link.
    match backend::link(&blobs, main) {
        Ok(image) => out.image = Some(image),
        Err(e) => out
            .diagnostics
            .push(Diagnostic::error_no_span(format!("linking failed: {e}"))),
    }
    drop(blobs);
    phases.done("link");
    out.ir = kept.map(|functions| IrProgram { functions, main });
    out.phases = phases.phases;
    out
}

/// The crate root's `main` function, if there is one.
fn main_def(tree: &ItemTree, tables: &Tables<'_>) -> Option<DefId> {
    entry::find_main(tables, tree.root, &|def| tree.parent(def))
}

/// `main` must exist at the crate root and be `fn main()`.
fn check_main(tree: &ItemTree, tables: &Tables<'_>, root: &Path, krate: &LoadedCrate) {
    let Some(main) = main_def(tree, tables) else {
        let root_text = krate.root.map(|f| krate.sources.get(f).text.clone());
        let diag = entry::missing_main(root, root_text.as_deref());
        tables.report_main(match krate.root {
            Some(file) => diag.anchor(file, 0),
            None => diag,
        });
        return;
    };
    let def = tree.def(main).expect("main is a def of the tree");
    if let Some(diag) = entry::check_main(tables, main, &|| Some(def.name_span)) {
        tables.report_main(diag.anchor(def.file, def.offset));
    }
}

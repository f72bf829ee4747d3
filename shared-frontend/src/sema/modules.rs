//! The module tree: which file each `mod name;` loads, by Rust 2018's rules.
//!
//! Every module has a directory (LANGUAGE.md "Programs and files"): the root file's
//! directory for the crate root, and `PARENT_DIR/name` for every other module, inline or
//! loaded from a file (for `foo.rs` and `foo/mod.rs` alike that is `foo/`). `mod name;`
//! loads `DIR/name.rs` or `DIR/name/mod.rs`; both existing is E0761, neither E0583.
//!
//! File access goes through [`FileLoader`], so loading is a pure function of what the
//! loader returns: [`FsLoader`] reads the file system, [`MemLoader`] serves a fixed set of
//! files (tests, generated programs). [`load_crate`] loads and parses every file of a
//! program, in source order (a file's own modules right after the `mod` that loads them).
//! A file reached by two `mod` declarations is loaded twice, as two modules (rustc does
//! the same); a module whose file is the file being loaded (`mod main;` in `main.rs`) is
//! "circular modules".

use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::diag::{Diagnostic, Label};
use crate::limits::{MAX_FILE_SIZE, MAX_MODULE_DEPTH};
use crate::span::{FileId, SourceFile, SourceMap, Span};
use crate::syntax::ast::{Item, ItemKind, SourceFileAst};

/// How the module tree reads files.
pub trait FileLoader {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>>;
    fn is_file(&self, path: &Path) -> bool;

    /// [`FileLoader::load`] into a shared buffer. The default converts `load`'s vector (a
    /// copy of every byte); a loader that can fill the shared buffer directly does so.
    fn load_shared(&self, path: &Path) -> io::Result<Arc<[u8]>> {
        self.load(path).map(Arc::from)
    }

    /// [`FileLoader::load`] into `buf`, which it empties first and whose capacity it
    /// reuses: a caller that reads many files only to digest them reads each into the
    /// same memory. The default copies `load`'s vector.
    fn load_into(&self, path: &Path, buf: &mut Vec<u8>) -> io::Result<()> {
        let bytes = self.load(path)?;
        buf.clear();
        buf.extend_from_slice(&bytes);
        Ok(())
    }

    /// What the loader can tell about `path` without reading it: the metadata that
    /// changes whenever the file does (`git status`'s stat data), so that an incremental
    /// driver reads only the files whose metadata changed. `None` (the default) when the
    /// loader has nothing cheaper than the content itself: the caller then compares
    /// contents, so the answer changes exactly when the content does.
    fn stat(&self, path: &Path) -> Option<FileStat> {
        let _ = path;
        None
    }
}

/// What is at a path, as [`FileLoader::stat`] reports it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FileKind {
    /// Nothing (`ENOENT`).
    Missing,
    /// A regular file (after following symbolic links).
    File,
    Directory,
    /// Anything else: a FIFO, a socket, a device.
    Other,
    /// The metadata could not be read (`ENOTDIR`, `EACCES` on a directory on the way…):
    /// `raw_os_error` when there is one, and the error's text.
    Unreadable {
        os: Option<i32>,
        message: String,
    },
}

/// A path's metadata: its kind, and for a file the fields that change when it is written,
/// replaced or moved (`git`'s stat data). Times are nanoseconds since the Unix epoch
/// (negative before it); `ctime` is the inode's change time, which every write, rename,
/// `chmod` and `utimensat` sets to the current time and no user can set back. Fields a
/// platform does not have are 0.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStat {
    pub kind: FileKind,
    pub size: u64,
    pub mtime_ns: i128,
    pub ctime_ns: i128,
    pub inode: u64,
    pub device: u64,
}

impl FileStat {
    /// A stat of a path that is not a file (no size, times or identity).
    pub fn of_kind(kind: FileKind) -> FileStat {
        FileStat {
            kind,
            size: 0,
            mtime_ns: 0,
            ctime_ns: 0,
            inode: 0,
            device: 0,
        }
    }

    /// The stat of a path from `std::fs::metadata` (symbolic links followed, as a read
    /// follows them). Only a file's fields are kept: a directory's times change whenever
    /// an entry is added, which says nothing about reading it as a file.
    pub fn from_metadata(result: io::Result<std::fs::Metadata>) -> FileStat {
        let meta = match result {
            Ok(meta) => meta,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return FileStat::of_kind(FileKind::Missing)
            }
            Err(e) => {
                return FileStat::of_kind(FileKind::Unreadable {
                    os: e.raw_os_error(),
                    message: e.to_string(),
                })
            }
        };
        if meta.is_dir() {
            return FileStat::of_kind(FileKind::Directory);
        }
        if !meta.is_file() {
            return FileStat::of_kind(FileKind::Other);
        }
        FileStat::with_metadata(FileKind::File, &meta)
    }

    /// A stat of `kind` with every field of `meta`: size, mtime, ctime, inode and device.
    pub fn with_metadata(kind: FileKind, meta: &std::fs::Metadata) -> FileStat {
        let mtime_ns = meta.modified().map_or(0, system_time_ns);
        #[cfg(unix)]
        let (ctime_ns, inode, device) = {
            use std::os::unix::fs::MetadataExt;
            (
                i128::from(meta.ctime()) * 1_000_000_000 + i128::from(meta.ctime_nsec()),
                meta.ino(),
                meta.dev(),
            )
        };
        #[cfg(not(unix))]
        let (ctime_ns, inode, device) = (0, 0, 0);
        FileStat {
            kind,
            size: meta.len(),
            mtime_ns,
            ctime_ns,
            inode,
            device,
        }
    }
}

/// A time as nanoseconds since the Unix epoch, negative before it.
pub fn system_time_ns(t: std::time::SystemTime) -> i128 {
    match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => d.as_nanos() as i128,
        Err(e) => -(e.duration().as_nanos() as i128),
    }
}

/// Reads the file system.
#[derive(Clone, Copy, Debug, Default)]
pub struct FsLoader;

impl FileLoader for FsLoader {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    /// Reads the file straight into its shared buffer, sized by the open file's metadata,
    /// so that its bytes are neither zeroed first nor copied again from a vector. A file
    /// that grew since its metadata was read is read on into a vector; one that shrank is
    /// copied to its length.
    #[cfg(unix)]
    fn load_shared(&self, path: &Path) -> io::Result<Arc<[u8]>> {
        use std::io::Read;
        let mut file = std::fs::File::open(path)?;
        let len = file.metadata().map(|m| m.len()).unwrap_or(0);
        let Ok(len) = usize::try_from(len) else {
            return std::fs::read(path).map(Arc::from);
        };
        let mut fresh = Arc::<[u8]>::new_uninit_slice(len);
        let dst = Arc::get_mut(&mut fresh).expect("a new buffer has one owner");
        let filled = read_uninit(&file, dst)?;
        let buf: Arc<[u8]> = if filled == len {
            // SAFETY: the reads wrote every byte.
            unsafe { fresh.assume_init() }
        } else {
            // SAFETY: the reads wrote the first `filled` bytes.
            let prefix = unsafe { std::slice::from_raw_parts(fresh.as_ptr().cast::<u8>(), filled) };
            return Ok(Arc::from(prefix));
        };
        let mut rest = Vec::new();
        file.read_to_end(&mut rest)?;
        if rest.is_empty() {
            return Ok(buf);
        }
        let mut all = Vec::with_capacity(buf.len() + rest.len());
        all.extend_from_slice(&buf);
        all.extend_from_slice(&rest);
        Ok(Arc::from(all))
    }

    fn load_into(&self, path: &Path, buf: &mut Vec<u8>) -> io::Result<()> {
        use std::io::Read;
        buf.clear();
        std::fs::File::open(path)?.read_to_end(buf).map(drop)
    }

    fn is_file(&self, path: &Path) -> bool {
        path.is_file()
    }

    fn stat(&self, path: &Path) -> Option<FileStat> {
        Some(FileStat::from_metadata(std::fs::metadata(path)))
    }
}

/// Reads `file` into `dst` until `dst` is full or the file ends; the number of bytes read.
/// The kernel writes the bytes, so `dst` need not be initialized first.
#[cfg(unix)]
fn read_uninit(file: &std::fs::File, dst: &mut [std::mem::MaybeUninit<u8>]) -> io::Result<usize> {
    use std::os::fd::AsRawFd;
    let mut filled = 0;
    while filled < dst.len() {
        let want = (dst.len() - filled).min(isize::MAX as usize);
        // SAFETY: the pointer and length stay inside `dst`, which the kernel only writes.
        let n = unsafe { libc::read(file.as_raw_fd(), dst.as_mut_ptr().add(filled).cast(), want) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            break;
        }
        filled += n as usize;
    }
    Ok(filled)
}

/// The text of a file read into a shared buffer, in that same buffer: the source map
/// keeps the loader's bytes instead of a copy of them. The bytes and why they are not
/// UTF-8 otherwise.
fn shared_str(bytes: Arc<[u8]>) -> Result<Arc<str>, (Arc<[u8]>, std::str::Utf8Error)> {
    if let Err(e) = std::str::from_utf8(&bytes) {
        return Err((bytes, e));
    }
    // SAFETY: the bytes were just checked to be UTF-8, and `str` has the layout of
    // `[u8]`, so the allocation is a valid `Arc<str>` (the standard library's
    // `Arc<str>: From<&str>` makes one from an `Arc<[u8]>` the same way).
    Ok(unsafe { Arc::from_raw(Arc::into_raw(bytes) as *const str) })
}

/// A fixed set of in-memory files. Paths compare component-wise (`a//b.rs` is `a/b.rs`).
/// It has no metadata ([`FileLoader::stat`] is `None`): an incremental driver compares
/// its files by content, so a file counts as changed exactly when its text does.
#[derive(Clone, Debug, Default)]
pub struct MemLoader {
    files: FxHashMap<PathBuf, Arc<[u8]>>,
}

impl MemLoader {
    pub fn new<P: AsRef<Path>, T: AsRef<[u8]>>(files: impl IntoIterator<Item = (P, T)>) -> Self {
        let mut loader = MemLoader::default();
        for (path, text) in files {
            loader.insert(path, text);
        }
        loader
    }

    /// Adds or replaces a file.
    pub fn insert(&mut self, path: impl AsRef<Path>, text: impl AsRef<[u8]>) {
        self.files
            .insert(path.as_ref().to_path_buf(), Arc::from(text.as_ref()));
    }
}

impl FileLoader for MemLoader {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>> {
        match self.files.get(path) {
            Some(bytes) => Ok(bytes.to_vec()),
            None => Err(io::Error::new(
                io::ErrorKind::NotFound,
                "No such file or directory (os error 2)",
            )),
        }
    }

    fn is_file(&self, path: &Path) -> bool {
        self.files.contains_key(path)
    }

    fn load_shared(&self, path: &Path) -> io::Result<Arc<[u8]>> {
        match self.files.get(path) {
            Some(bytes) => Ok(bytes.clone()),
            None => self.load(path).map(Arc::from),
        }
    }
}

/// The directory of the crate root's module: the root file's own directory.
pub fn root_module_dir(root_file: &Path) -> PathBuf {
    root_file
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_default()
}

/// The directory of module `name` declared (inline or as `mod name;`) in a module whose
/// directory is `parent_dir`.
pub fn child_module_dir(parent_dir: &Path, name: &str) -> PathBuf {
    parent_dir.join(name)
}

/// The directory of a module loaded from `file` by `mod name;` (`DIR/name.rs` or
/// `DIR/name/mod.rs`): `DIR/name` in both cases.
pub fn file_module_dir(file: &Path) -> PathBuf {
    let parent = root_module_dir(file);
    if file.file_name().is_some_and(|n| n == "mod.rs") {
        parent
    } else {
        match file.file_stem() {
            Some(stem) => parent.join(stem),
            None => parent,
        }
    }
}

/// The two files `mod name;` may load, in a module whose directory is `module_dir`:
/// `[DIR/name.rs, DIR/name/mod.rs]`.
pub fn module_file_candidates(module_dir: &Path, name: &str) -> [PathBuf; 2] {
    [
        module_dir.join(format!("{name}.rs")),
        module_dir.join(name).join("mod.rs"),
    ]
}

/// A `mod name;` item of a file, found by [`file_mod_decls`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModDecl {
    /// Absolute offset of the `mod` item in its file (its key in
    /// [`LoadedCrate::mod_files`]).
    pub offset: u32,
    /// The whole item, absolute.
    pub span: Span,
    pub name: crate::intern::Symbol,
    /// The directory of the module the item is in: where its file is looked for.
    pub parent_dir: PathBuf,
    /// How many inline modules enclose the item within its file (0 at the top).
    pub inline_depth: u32,
}

/// Every `mod name;` of one file whose own module directory is `module_dir`, in source
/// order, inside inline modules too: what a file needs loaded next. Inline modules
/// nested deeper than `MAX_MODULE_DEPTH` are not entered (the parser reports them).
pub fn file_mod_decls(items: &[Item], module_dir: &Path) -> Vec<ModDecl> {
    fn walk(items: &[Item], dir: &Path, depth: u32, out: &mut Vec<ModDecl>) {
        for item in items {
            let ItemKind::Mod(m) = &item.kind else {
                continue;
            };
            match &m.items {
                None => out.push(ModDecl {
                    offset: item.offset,
                    span: item.span.shift(item.offset),
                    name: m.name.name,
                    parent_dir: dir.to_path_buf(),
                    inline_depth: depth,
                }),
                Some(inner) if depth < MAX_MODULE_DEPTH => walk(
                    inner,
                    &child_module_dir(dir, m.name.name.as_str()),
                    depth + 1,
                    out,
                ),
                Some(_) => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(items, module_dir, 0, &mut out);
    out
}

/// Why `mod name;` has no file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ModFileError {
    /// E0583: neither candidate exists.
    NotFound { candidates: [PathBuf; 2] },
    /// E0761: both exist.
    Ambiguous { candidates: [PathBuf; 2] },
}

/// Picks the file of `mod name;` in a module whose directory is `module_dir`.
pub fn find_module_file(
    loader: &dyn FileLoader,
    module_dir: &Path,
    name: &str,
) -> Result<PathBuf, ModFileError> {
    let candidates = module_file_candidates(module_dir, name);
    match (
        loader.is_file(&candidates[0]),
        loader.is_file(&candidates[1]),
    ) {
        (true, false) => {
            let [file, _] = candidates;
            Ok(file)
        }
        (false, true) => {
            let [_, file] = candidates;
            Ok(file)
        }
        (true, true) => Err(ModFileError::Ambiguous { candidates }),
        (false, false) => Err(ModFileError::NotFound { candidates }),
    }
}

impl ModFileError {
    /// rustc's diagnostic, with its primary span on the `mod` item (`span`, relative).
    pub fn to_diagnostic(&self, name: &str, span: Span) -> Diagnostic {
        match self {
            ModFileError::NotFound { candidates } => Diagnostic::error(
                format!("file not found for module `{name}`"),
                span,
            )
            .with_code("E0583")
            .with_note(format!(
                "help: to create the module `{name}`, create file \"{}\" or \"{}\"",
                candidates[0].display(),
                candidates[1].display()
            ))
            .with_note(format!(
                "note: if there is a `mod {name}` elsewhere in the crate already, import it with `use crate::...` instead"
            )),
            ModFileError::Ambiguous { candidates } => Diagnostic::error(
                format!(
                    "file for module `{name}` found at both \"{}\" and \"{}\"",
                    candidates[0].display(),
                    candidates[1].display()
                ),
                span,
            )
            .with_code("E0761")
            .with_note("help: delete or rename one of them to remove the ambiguity"),
        }
    }
}

/// One parsed file of a program.
#[derive(Clone, Debug)]
pub struct ParsedFile {
    pub file: FileId,
    pub ast: Arc<SourceFileAst>,
}

/// Every file of a program, loaded and parsed.
#[derive(Clone, Debug, Default)]
pub struct LoadedCrate {
    /// Every file that could be read, the root first. A file that is not valid UTF-8 is
    /// here with its lossy text (for the diagnostic's snippet) but is not parsed.
    pub sources: SourceMap,
    /// The parsed files, in load order.
    pub files: Vec<ParsedFile>,
    /// The parsed root file; `None` when the root file could not be read or parsed.
    pub root: Option<FileId>,
    /// The path the root was loaded from (its directory is the root module's).
    pub root_path: PathBuf,
    /// The root file could not be read at all (an I/O error): the driver's exit code 2.
    pub root_unreadable: bool,
    /// Files that were found (the root, or the file chosen for a `mod name;`) but could
    /// not be loaded: unreadable, larger than `MAX_FILE_SIZE`, or not UTF-8. Each has a
    /// diagnostic; none has a syntax tree.
    pub unloaded: Vec<PathBuf>,
    /// `mod name;` at (file, item offset) → the file loaded for it. Declarations whose
    /// file is missing, ambiguous, unreadable or circular are absent.
    pub mod_files: FxHashMap<(FileId, u32), FileId>,
    /// Parse errors and module-loading errors, anchored (absolute, `file: Some`).
    pub diagnostics: Vec<Diagnostic>,
    /// `FileId` → index in `files`.
    parsed_index: Vec<Option<u32>>,
}

impl LoadedCrate {
    /// The syntax tree of a parsed file.
    pub fn ast(&self, file: FileId) -> Option<&Arc<SourceFileAst>> {
        let index = (*self.parsed_index.get(file.0 as usize)?)?;
        Some(&self.files[index as usize].ast)
    }

    /// The file loaded by the `mod name;` item at `offset` of `file`.
    pub fn mod_file(&self, file: FileId, offset: u32) -> Option<FileId> {
        self.mod_files.get(&(file, offset)).copied()
    }

    pub fn has_errors(&self) -> bool {
        self.diagnostics.iter().any(Diagnostic::is_error)
    }
}

/// Loads and parses the program whose root file is `root`, with the syntax crate's parser.
pub fn load_crate(loader: &dyn FileLoader, root: &Path) -> LoadedCrate {
    load_crate_with(loader, root, &crate::syntax::parser::parse_file)
}

/// [`load_crate`] with the parser given explicitly.
pub fn load_crate_with(
    loader: &dyn FileLoader,
    root: &Path,
    parse: &dyn Fn(&str) -> (SourceFileAst, Vec<Diagnostic>),
) -> LoadedCrate {
    load_crate_parsed(loader, root, &|_, text| parse(text))
}

/// How [`load_crate_parsed`] parses one file's text.
pub type ParseFn<'a> = dyn Fn(&Path, &str) -> (SourceFileAst, Vec<Diagnostic>) + 'a;

/// [`load_crate`] with a parser that is also told which file it parses (a driver that
/// memoizes parsing per file, or keeps only a file's item skeleton).
pub fn load_crate_parsed(loader: &dyn FileLoader, root: &Path, parse: &ParseFn<'_>) -> LoadedCrate {
    let mut cx = Loader {
        loader,
        parse,
        out: LoadedCrate {
            root_path: root.to_path_buf(),
            ..LoadedCrate::default()
        },
        file_stack: Vec::new(),
    };
    let bytes = match loader.load_shared(root) {
        Ok(bytes) => bytes,
        Err(e) => {
            cx.out.root_unreadable = true;
            cx.out.unloaded.push(root.to_path_buf());
            cx.out.diagnostics.push(Diagnostic::error_no_span(format!(
                "couldn't read `{}`: {}",
                root.display(),
                io_error_text(&e)
            )));
            return cx.out;
        }
    };
    if let Some(file) = cx.add_file(root, bytes, None) {
        cx.out.root = Some(file);
        cx.file_stack.push(root.to_path_buf());
        if let Some(ast) = cx.out.ast(file).cloned() {
            cx.walk_items(file, &ast.items, &root_module_dir(root), 0, 0);
        }
        cx.file_stack.pop();
    }
    cx.out
}

struct Loader<'a> {
    loader: &'a dyn FileLoader,
    parse: &'a ParseFn<'a>,
    out: LoadedCrate,
    /// Paths of the file modules enclosing the one being walked, for "circular modules".
    file_stack: Vec<PathBuf>,
}

/// Where a file is loaded from, for diagnostics: the `mod` item that asked for it.
#[derive(Clone, Copy)]
struct Requester {
    file: FileId,
    span: Span,
}

impl Loader<'_> {
    /// Adds a read file to the source map and parses it. Returns the id when it was
    /// parsed; reports invalid UTF-8 or an oversized file (pointing at `requester`'s `mod`
    /// item when there is one).
    fn add_file(
        &mut self,
        path: &Path,
        bytes: Arc<[u8]>,
        requester: Option<Requester>,
    ) -> Option<FileId> {
        if bytes.len() > MAX_FILE_SIZE {
            self.out.unloaded.push(path.to_path_buf());
            let mut d = Diagnostic::error_no_span(format!(
                "source file `{}` is larger than the implementation limit of {MAX_FILE_SIZE} bytes (MAX_FILE_SIZE)",
                path.display(),
            ));
            if let Some(r) = requester {
                d.labels.push(anchored_label(r.file, r.span, ""));
            }
            self.out.diagnostics.push(d);
            return None;
        }
        match shared_str(bytes) {
            Ok(text) => {
                let (ast, diags) = (self.parse)(path, &text);
                let file = self
                    .out
                    .sources
                    .add(SourceFile::new(path.to_path_buf(), text));
                self.out
                    .diagnostics
                    .extend(diags.into_iter().map(|d| d.anchor(file, 0)));
                self.set_parsed(file, ast);
                Some(file)
            }
            Err((bytes, e)) => {
                self.out.unloaded.push(path.to_path_buf());
                let valid_up_to = e.valid_up_to() as u32;
                let bad = bytes[valid_up_to as usize];
                let lossy: Arc<str> = Arc::from(String::from_utf8_lossy(&bytes).as_ref());
                let file = self
                    .out
                    .sources
                    .add(SourceFile::new(path.to_path_buf(), lossy));
                let message = format!(
                    "couldn't read `{}`: stream did not contain valid UTF-8",
                    path.display()
                );
                // The lossy text has U+FFFD (3 bytes) where the bad byte was.
                let byte_label = anchored_label(
                    file,
                    Span::new(valid_up_to, valid_up_to + '\u{FFFD}'.len_utf8() as u32),
                    format!("byte `{bad}` is not valid utf-8"),
                );
                let mut d = Diagnostic::error_no_span(message);
                if let Some(r) = requester {
                    d.labels.push(anchored_label(r.file, r.span, ""));
                }
                d.labels.push(byte_label);
                self.out.diagnostics.push(d);
                None
            }
        }
    }

    fn set_parsed(&mut self, file: FileId, ast: SourceFileAst) {
        let index = self.out.files.len() as u32;
        self.out.files.push(ParsedFile {
            file,
            ast: Arc::new(ast),
        });
        let slot = file.0 as usize;
        if self.out.parsed_index.len() <= slot {
            self.out.parsed_index.resize(slot + 1, None);
        }
        self.out.parsed_index[slot] = Some(index);
    }

    /// Walks the items of one module (in `file`, directory `dir`, crate-wide nesting
    /// `depth`, nesting within the file `file_depth`), loading the files of its
    /// `mod name;` items and walking inline modules. Recursion depth is bounded by
    /// `MAX_MODULE_DEPTH`.
    fn walk_items(
        &mut self,
        file: FileId,
        items: &[Item],
        dir: &Path,
        depth: u32,
        file_depth: u32,
    ) {
        for item in items {
            let ItemKind::Mod(m) = &item.kind else {
                continue;
            };
            let name = m.name.name.as_str();
            let item_span = item.span.shift(item.offset);
            if depth + 1 > MAX_MODULE_DEPTH {
                // The parser reports inline modules nested too deep within one file.
                let parser_reported = m.items.is_some() && file_depth + 1 > MAX_MODULE_DEPTH;
                if !parser_reported {
                    self.out
                        .diagnostics
                        .push(module_depth_error(item_span).anchor(file, 0));
                }
                continue;
            }
            let child_dir = child_module_dir(dir, name);
            match &m.items {
                Some(inner) => self.walk_items(file, inner, &child_dir, depth + 1, file_depth + 1),
                None => self.load_module_file(
                    file,
                    item.offset,
                    item_span,
                    name,
                    dir,
                    &child_dir,
                    depth + 1,
                ),
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn load_module_file(
        &mut self,
        parent_file: FileId,
        item_offset: u32,
        item_span: Span,
        name: &str,
        parent_dir: &Path,
        child_dir: &Path,
        depth: u32,
    ) {
        let path = match find_module_file(self.loader, parent_dir, name) {
            Ok(path) => path,
            Err(e) => {
                self.out
                    .diagnostics
                    .push(e.to_diagnostic(name, item_span).anchor(parent_file, 0));
                return;
            }
        };
        if let Some(pos) = self.file_stack.iter().position(|p| *p == path) {
            let mut chain: Vec<String> = self.file_stack[pos..]
                .iter()
                .map(|p| p.display().to_string())
                .collect();
            chain.push(path.display().to_string());
            self.out.diagnostics.push(
                Diagnostic::error(
                    format!("circular modules: {}", chain.join(" -> ")),
                    item_span,
                )
                .anchor(parent_file, 0),
            );
            return;
        }
        let requester = Requester {
            file: parent_file,
            span: item_span,
        };
        let bytes = match self.loader.load_shared(&path) {
            Ok(bytes) => bytes,
            Err(e) => {
                self.out.unloaded.push(path.clone());
                self.out.diagnostics.push(
                    Diagnostic::error(
                        format!("couldn't read `{}`: {}", path.display(), io_error_text(&e)),
                        item_span,
                    )
                    .anchor(parent_file, 0),
                );
                return;
            }
        };
        let Some(file) = self.add_file(&path, bytes, Some(requester)) else {
            return;
        };
        self.out.mod_files.insert((parent_file, item_offset), file);
        if let Some(ast) = self.out.ast(file).cloned() {
            self.file_stack.push(path);
            self.walk_items(file, &ast.items, child_dir, depth, 0);
            self.file_stack.pop();
        }
    }
}

/// The same wording as the parser's, for modules nested across files.
fn module_depth_error(span: Span) -> Diagnostic {
    Diagnostic::error(
        format!(
            "module nesting is deeper than the implementation limit of {MAX_MODULE_DEPTH} (MAX_MODULE_DEPTH)"
        ),
        span,
    )
}

fn anchored_label(file: FileId, span: Span, message: impl Into<String>) -> Label {
    Label {
        file: Some(file),
        span,
        message: message.into(),
    }
}

/// `No such file or directory (os error 2)`, as rustc prints an I/O error.
fn io_error_text(e: &io::Error) -> String {
    e.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `FsLoader::load_shared` reads what `load` reads, byte for byte, and fails as it
    /// does: files of every size class, a file whose metadata says it is empty but which
    /// is not (`/proc`), a directory, a missing path.
    #[test]
    fn load_shared_reads_what_load_reads() {
        let dir = std::env::temp_dir().join(format!("rill-load-shared-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        for len in [0usize, 1, 15, 4096, 100_001] {
            let bytes: Vec<u8> = (0..len)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    x as u8
                })
                .collect();
            let path = dir.join(format!("f{len}.rs"));
            std::fs::write(&path, &bytes).unwrap();
            let shared = FsLoader.load_shared(&path).unwrap();
            assert_eq!(&shared[..], &bytes[..], "{len} bytes");
            assert_eq!(&shared[..], &FsLoader.load(&path).unwrap()[..]);
        }
        if cfg!(target_os = "linux") {
            let path = Path::new("/proc/self/cmdline");
            let shared = FsLoader.load_shared(path).unwrap();
            assert!(!shared.is_empty());
            assert_eq!(&shared[..], &FsLoader.load(path).unwrap()[..]);
        }
        for path in [dir.clone(), dir.join("missing.rs")] {
            let a = FsLoader.load(&path).unwrap_err();
            let b = FsLoader.load_shared(&path).unwrap_err();
            assert_eq!(
                (a.raw_os_error(), a.to_string()),
                (b.raw_os_error(), b.to_string())
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

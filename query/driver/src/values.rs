//! The values of the Rill queries, and how they are fingerprinted.
//!
//! Frontend and backend values are hashed through their serde serialization
//! ([`crate::hash_serde`]; a function's IR as one byte string, see `ir_bytes`): symbols
//! serialize their text and items are named by def-path hashes, so fingerprints are the
//! same in every process. Values that are persisted
//! (`cache_on_disk`) hold no `FileId` (a process-local index): files are named by path.

use std::path::PathBuf;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use shared_frontend::diag::{Diagnostic, Label};
use shared_frontend::intern::Symbol;
use shared_frontend::sema::def::{DefId, DefKind, DefPath, Namespace, Res, Vis};
use shared_frontend::sema::items::{ItemAst, ItemTree};
use shared_frontend::sema::modules::{FileKind, FileStat, LoadedCrate};
use shared_frontend::sema::resolve::{Binding, ModuleScope, NameBindings, ResolvedCrate};
use shared_frontend::span::{FileId, SourceMap, Span};
use shared_frontend::syntax::ast::{SourceFileAst, UseDef};

use query::{hash_serde, StableHash, StableHasher};

use crate::RillDb;

/// Implements [`StableHash`] through serde for types of other crates (under the hashing
/// context [`RillDb`], which the orphan rule allows).
macro_rules! serde_stable_hash {
    ($($t:ty),* $(,)?) => {$(
        impl StableHash<RillDb> for $t {
            fn stable_hash(&self, h: &mut StableHasher) {
                hash_serde(self, h)
            }
        }
    )*};
}

/// A function's IR (`optimize`, hashed but not persisted): thousands of small fields,
/// written by [`ir_bytes`] into one byte string that the hasher digests at once
/// ([`StableHasher::write_blob`]), instead of one hasher call per field.
impl StableHash<RillDb> for shared_frontend::ir::IrFunction {
    fn stable_hash(&self, h: &mut StableHasher) {
        IR_BYTES.with(|cell| {
            let mut buf = cell.take();
            buf.clear();
            ir_bytes(self, &mut buf);
            h.write_blob(&buf);
            if buf.capacity() <= 1 << 20 {
                cell.set(buf);
            }
        })
    }
}

thread_local! {
    /// The buffer the IR is written into to be hashed, kept between calls.
    static IR_BYTES: std::cell::Cell<Vec<u8>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Writes every field of `f` to `out`, little-endian and fixed-width, every sequence and
/// string with its length first and every enum with its variant's index first, so that
/// two functions give the same bytes only if they are equal. Every `match` is exhaustive:
/// a new field or variant of the IR does not compile until it is written here.
fn ir_bytes(f: &shared_frontend::ir::IrFunction, out: &mut Vec<u8>) {
    use shared_frontend::ir::{
        BasicBlock, Inst, IrBinOp, IrFunction, IrUnOp, PanicKind, PrintArg, ScalarTy, Terminator,
    };
    fn u32_(out: &mut Vec<u8>, x: u32) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    fn u64_(out: &mut Vec<u8>, x: u64) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    fn len(out: &mut Vec<u8>, n: usize) {
        u64_(out, n as u64);
    }
    fn ty(t: ScalarTy) -> u8 {
        match t {
            ScalarTy::Bool => 0,
            ScalarTy::I32 => 1,
            ScalarTy::I64 => 2,
            ScalarTy::U64 => 3,
            ScalarTy::Ptr => 4,
        }
    }
    fn opt_reg(out: &mut Vec<u8>, r: Option<shared_frontend::ir::VReg>) {
        match r {
            None => out.push(0),
            Some(r) => {
                out.push(1);
                u32_(out, r.0);
            }
        }
    }
    fn inst(out: &mut Vec<u8>, i: &Inst) {
        match i {
            Inst::Const { dst, value } => {
                out.push(0);
                u32_(out, dst.0);
                u64_(out, *value);
            }
            Inst::Copy { dst, src } => {
                out.push(1);
                u32_(out, dst.0);
                u32_(out, src.0);
            }
            Inst::Unary { op, dst, src } => {
                out.push(2);
                out.push(match op {
                    IrUnOp::Neg => 0,
                    IrUnOp::Not => 1,
                });
                u32_(out, dst.0);
                u32_(out, src.0);
            }
            Inst::Binary { op, dst, lhs, rhs } => {
                out.push(3);
                out.push(match op {
                    IrBinOp::Add => 0,
                    IrBinOp::Sub => 1,
                    IrBinOp::Mul => 2,
                    IrBinOp::Div => 3,
                    IrBinOp::Rem => 4,
                    IrBinOp::And => 5,
                    IrBinOp::Or => 6,
                    IrBinOp::Xor => 7,
                    IrBinOp::Shl => 8,
                    IrBinOp::Shr => 9,
                    IrBinOp::Eq => 10,
                    IrBinOp::Ne => 11,
                    IrBinOp::Lt => 12,
                    IrBinOp::Le => 13,
                    IrBinOp::Gt => 14,
                    IrBinOp::Ge => 15,
                });
                u32_(out, dst.0);
                u32_(out, lhs.0);
                u32_(out, rhs.0);
            }
            Inst::Cast { dst, src } => {
                out.push(4);
                u32_(out, dst.0);
                u32_(out, src.0);
            }
            Inst::SlotAddr { dst, slot } => {
                out.push(5);
                u32_(out, dst.0);
                u32_(out, slot.0);
            }
            Inst::DataAddr { dst, data } => {
                out.push(6);
                u32_(out, dst.0);
                u32_(out, data.0);
            }
            Inst::Load { dst, addr, offset } => {
                out.push(7);
                u32_(out, dst.0);
                u32_(out, addr.0);
                u32_(out, *offset);
            }
            Inst::Store { addr, offset, src } => {
                out.push(8);
                u32_(out, addr.0);
                u32_(out, *offset);
                u32_(out, src.0);
            }
            Inst::ElemAddr {
                dst,
                base,
                index,
                scale,
            } => {
                out.push(9);
                u32_(out, dst.0);
                u32_(out, base.0);
                u32_(out, index.0);
                u32_(out, *scale);
            }
            Inst::MemCopy { dst, src, size } => {
                out.push(10);
                u32_(out, dst.0);
                u32_(out, src.0);
                u32_(out, *size);
            }
            Inst::Call(call) => {
                out.push(11);
                opt_reg(out, call.dst);
                out.extend_from_slice(&call.callee.0.to_le_bytes());
                len(out, call.args.len());
                for a in &call.args {
                    u32_(out, a.0);
                }
            }
            Inst::Print(arg) => {
                out.push(12);
                match arg {
                    PrintArg::Str(d) => {
                        out.push(0);
                        u32_(out, d.0);
                    }
                    PrintArg::Int(r) => {
                        out.push(1);
                        u32_(out, r.0);
                    }
                    PrintArg::Bool(r) => {
                        out.push(2);
                        u32_(out, r.0);
                    }
                }
            }
        }
    }
    fn block(out: &mut Vec<u8>, b: &BasicBlock) {
        len(out, b.insts.len());
        for i in &b.insts {
            inst(out, i);
        }
        match &b.term {
            Terminator::Jump(t) => {
                out.push(0);
                u32_(out, t.0);
            }
            Terminator::Branch {
                cond,
                then_block,
                else_block,
            } => {
                out.push(1);
                u32_(out, cond.0);
                u32_(out, then_block.0);
                u32_(out, else_block.0);
            }
            Terminator::Return(r) => {
                out.push(2);
                opt_reg(out, *r);
            }
            Terminator::Panic(kind) => {
                out.push(3);
                match kind {
                    PanicKind::DivByZero => out.push(0),
                    PanicKind::RemByZero => out.push(1),
                    PanicKind::DivOverflow => out.push(2),
                    PanicKind::RemOverflow => out.push(3),
                    PanicKind::IndexOutOfBounds { index, len } => {
                        out.push(4);
                        u32_(out, index.0);
                        u64_(out, *len);
                    }
                }
            }
            Terminator::Unreachable => out.push(4),
        }
    }
    let IrFunction {
        def,
        name,
        params,
        sret,
        ret,
        vregs,
        slots,
        data,
        blocks,
    } = f;
    out.extend_from_slice(&def.0.to_le_bytes());
    len(out, name.len());
    out.extend_from_slice(name.as_bytes());
    len(out, params.len());
    for p in params {
        u32_(out, p.0);
    }
    out.push(u8::from(*sret));
    match ret {
        None => out.push(0),
        Some(t) => out.extend_from_slice(&[1, ty(*t)]),
    }
    len(out, vregs.len());
    out.extend(vregs.iter().map(|&t| ty(t)));
    len(out, slots.len());
    for s in slots {
        u32_(out, s.size);
        u32_(out, s.align);
    }
    len(out, data.len());
    for d in data {
        len(out, d.len());
        out.extend_from_slice(d);
    }
    len(out, blocks.len());
    for b in blocks {
        block(out, b);
    }
}

impl StableHash<RillDb> for shared_frontend::sema::def::DefPathHash {
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_u128(self.0)
    }

    /// A def id is the stable 128-bit hash of its def-path: as a key, its own fingerprint.
    #[inline]
    fn key_fingerprint(&self) -> Option<query::Fingerprint> {
        Some(query::Fingerprint::from_u128(self.0))
    }
}

serde_stable_hash!(
    ItemAst,
    Diagnostic,
    shared_frontend::sema::ty::FnSig,
    shared_frontend::sema::ty::StructFields,
    shared_frontend::sema::ty::Ty,
    shared_frontend::sema::ty::ConstValue,
    shared_frontend::sema::thir::Thir,
    backend::CodeBlob,
    DefKind,
    Skeleton,
    FileStatus,
    DefInfo,
    ModuleTree,
    ModuleItems,
    ModuleUse,
    DefShard,
    DefSource,
    PDiag,
    FileDiagnostics,
    TypeckOut,
    Granularity,
    SpanMode,
    shared_frontend::sema::resolve::NameBindings,
);

/// A name: hashed as its text through serde; as a key (a module's name in
/// `item_binding`, `resolve_name`), its text's digest.
impl StableHash<RillDb> for shared_frontend::intern::Symbol {
    fn stable_hash(&self, h: &mut StableHasher) {
        hash_serde(self, h)
    }

    #[inline]
    fn key_fingerprint(&self) -> Option<query::Fingerprint> {
        Some(query::Fingerprint::of_bytes(self.as_str().as_bytes()))
    }

    /// The digest reads the interner and hashes the text; FxHash reads the symbol's index.
    const HASHED_IN_MEMORY_BY_FX: bool = true;
}

/// How a source file was read: its bytes, or the I/O error (as the OS reported it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileText {
    Bytes(Arc<[u8]>),
    /// `raw_os_error` when there is one (so the message is the OS's), else the text.
    /// `is_file` is the loader's `is_file`: a file that exists but cannot be read is a
    /// file (its module reports the read error), a missing path or a directory is not
    /// (its module has no file), as for the pipeline, which asks the loader directly.
    Error {
        os: Option<i32>,
        message: String,
        is_file: bool,
    },
}

impl StableHash<RillDb> for FileText {
    fn stable_hash(&self, h: &mut StableHasher) {
        match self {
            FileText::Bytes(b) => hash_text_bytes(b, h),
            FileText::Error {
                os,
                message,
                is_file,
            } => {
                h.write_u8(1);
                hash_serde(os, h);
                h.write_str(message);
                h.write_u8(u8::from(*is_file));
            }
        }
    }
}

impl FileText {
    /// A read's result; `is_file` is asked only when the read failed.
    pub fn from_io(result: std::io::Result<Vec<u8>>, is_file: impl FnOnce() -> bool) -> FileText {
        match result {
            Ok(b) => FileText::Bytes(b.into()),
            Err(e) => FileText::Error {
                os: e.raw_os_error(),
                message: e.to_string(),
                is_file: is_file(),
            },
        }
    }

    /// [`FileText::from_io`] for a read into a shared buffer.
    pub fn from_shared(
        result: std::io::Result<Arc<[u8]>>,
        is_file: impl FnOnce() -> bool,
    ) -> FileText {
        match result {
            Ok(b) => FileText::Bytes(b),
            Err(e) => FileText::Error {
                os: e.raw_os_error(),
                message: e.to_string(),
                is_file: is_file(),
            },
        }
    }

    /// Whether the loader sees a file at the path (see `Error`).
    pub fn is_file(&self) -> bool {
        match self {
            FileText::Bytes(_) => true,
            FileText::Error { is_file, .. } => *is_file,
        }
    }

    pub fn to_io(&self) -> std::io::Result<Vec<u8>> {
        match self {
            FileText::Bytes(b) => Ok(b.to_vec()),
            FileText::Error { os: Some(code), .. } => Err(std::io::Error::from_raw_os_error(*code)),
            FileText::Error { message, .. } => Err(std::io::Error::other(message.clone())),
        }
    }
}

/// What `file_stamp` found at a path: what `file_text` is re-read on.
#[derive(Clone, Debug, PartialEq)]
pub struct FileStamp {
    /// The loader's metadata of the path (`None` under [`ChangeDetection::Hash`], or when
    /// the loader has none).
    pub stat: Option<FileStat>,
    /// What the stamp read of the content, when it had to read it (a racy file,
    /// [`ChangeDetection::Hash`], a loader without metadata).
    pub content: Option<StampContent>,
}

/// What a stamp keeps of a content it read. A racy file's stamp (under
/// [`ChangeDetection::Stat`], rare: a file written within the racy window) keeps the text
/// and hands it to `file_text`, so the file is read once. Under [`ChangeDetection::Hash`]
/// (and with a loader without metadata) every file is read in every build and few of them
/// changed: each is read into the same buffer and digested there, instead of into memory
/// of its own that the build would hold (and first touch) for every file, and
/// `file_text`, which re-executes only when its stamp changed, reads the file again.
#[derive(Clone, Debug, PartialEq)]
pub enum StampContent {
    /// The text as read (also a read that failed, as `file_text` then reports it).
    Text(Arc<FileText>),
    /// The bytes were read: their length and their fingerprint under the session's
    /// hasher, as `file_text`'s value hashes them ([`hash_text_bytes`]).
    Digest {
        len: u64,
        fingerprint: query::Fingerprint,
        /// How many times the file raced in this session (`Host::raced`), 0 normally.
        raced: u32,
    },
}

/// How a file's bytes are hashed, by `file_text`'s value and by a stamp's digest.
pub(crate) fn hash_text_bytes(bytes: &[u8], h: &mut StableHasher) {
    h.write_u8(0);
    h.write_blob(bytes);
}

/// The digest of a stamp's content read as `bytes` ([`StampContent::Digest`]).
pub(crate) fn text_digest(bytes: &[u8], hasher: query::HasherKind) -> query::Fingerprint {
    let mut h = StableHasher::new(hasher);
    hash_text_bytes(bytes, &mut h);
    h.finish()
}

/// A file stat's every field, in a fixed order (file and directory stamps).
pub(crate) fn hash_file_stat(stat: &FileStat, h: &mut StableHasher) {
    match &stat.kind {
        FileKind::Missing => h.write_u8(0),
        FileKind::File => h.write_u8(1),
        FileKind::Directory => h.write_u8(2),
        FileKind::Other => h.write_u8(3),
        FileKind::Unreadable { os, message } => {
            h.write_u8(4);
            hash_serde(os, h);
            h.write_str(message);
        }
    }
    h.write_u64(stat.size);
    h.write_u128(stat.mtime_ns as u128);
    h.write_u128(stat.ctime_ns as u128);
    h.write_u64(stat.inode);
    h.write_u64(stat.device);
}

/// How many bytes [`stat_bytes`] writes.
pub(crate) const STAT_BYTES: usize = 57;

/// A file stat's fixed-size fields in a fixed order (little-endian), for a stamp's own
/// digest; `None` for a path whose metadata could not be read (its error's text is not
/// of a fixed size: such a stamp is hashed).
pub(crate) fn stat_bytes(stat: &FileStat) -> Option<[u8; STAT_BYTES]> {
    let kind = match stat.kind {
        FileKind::Missing => 0u8,
        FileKind::File => 1,
        FileKind::Directory => 2,
        FileKind::Other => 3,
        FileKind::Unreadable { .. } => return None,
    };
    let mut b = [0u8; STAT_BYTES];
    b[0] = kind;
    b[1..9].copy_from_slice(&stat.size.to_le_bytes());
    b[9..25].copy_from_slice(&stat.mtime_ns.to_le_bytes());
    b[25..41].copy_from_slice(&stat.ctime_ns.to_le_bytes());
    b[41..49].copy_from_slice(&stat.inode.to_le_bytes());
    b[49..57].copy_from_slice(&stat.device.to_le_bytes());
    Some(b)
}

impl StableHash<RillDb> for FileStamp {
    /// A stamp of metadata alone (the usual one: every file in every build) is the digest
    /// of its fields, not fed to the hasher; a stamp with the content is hashed.
    #[inline]
    fn value_fingerprint(&self) -> Option<query::Fingerprint> {
        match (&self.stat, &self.content) {
            (Some(stat), None) => Some(query::Fingerprint::of_bytes(&stat_bytes(stat)?)),
            _ => None,
        }
    }

    fn stable_hash(&self, h: &mut StableHasher) {
        match &self.stat {
            None => h.write_u8(0),
            Some(stat) => {
                h.write_u8(1);
                hash_file_stat(stat, h);
            }
        }
        match &self.content {
            None => h.write_u8(0),
            Some(StampContent::Digest {
                len,
                fingerprint,
                raced,
            }) => {
                h.write_u8(1);
                h.write_u64(*len);
                h.write_bytes(&fingerprint.to_le_bytes());
                h.write_u32(*raced);
                // The bytes were hashed when the stamp was taken (in its provider's time):
                // they count as the stamp's hashing.
                h.count_hashed_elsewhere(*len);
            }
            Some(StampContent::Text(text)) => {
                h.write_u8(2);
                text.stable_hash(h);
            }
        }
    }
}

/// How a build finds the source files that changed since the previous one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ChangeDetection {
    /// By metadata (size, times, inode), as `git status` and `make` do: a file whose
    /// metadata is unchanged is not read. A racy file (changed too recently for its
    /// times to be trusted) is also compared by content.
    #[default]
    Stat,
    /// By content, as rustc does: every file is read and hashed in every build.
    Hash,
}

impl ChangeDetection {
    pub fn from_name(name: &str) -> Option<ChangeDetection> {
        match name {
            "stat" => Some(ChangeDetection::Stat),
            "hash" => Some(ChangeDetection::Hash),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ChangeDetection::Stat => "stat",
            ChangeDetection::Hash => "hash",
        }
    }
}

/// A parsed file: its syntax tree and the parser's diagnostics (absolute, unanchored).
#[derive(Debug)]
pub struct Parsed {
    pub ast: Arc<SourceFileAst>,
    pub diagnostics: Vec<Diagnostic>,
    /// The absolute offset of every item, in pre-order (an item, then the items of an
    /// inline module it declares): an item's *ordinal* indexes it.
    pub offsets: Vec<u32>,
    /// The length of every item's text, by ordinal.
    pub lengths: Vec<u32>,
}

/// An item's syntax and its source text. The syntax is a function of the text (spans are
/// relative to the item), so the text alone is fingerprinted: far fewer bytes than the
/// tree, and equal texts mean equal trees.
#[derive(Clone, Debug)]
pub struct ItemSyntax {
    pub ast: ItemAst,
    pub text: TextSlice,
    /// The item's absolute offset, under [`SpanMode::Absolute`] only.
    pub position: Option<u32>,
}

impl PartialEq for ItemSyntax {
    fn eq(&self, other: &Self) -> bool {
        self.text.bytes() == other.text.bytes() && self.position == other.position
    }
}

impl StableHash<RillDb> for ItemSyntax {
    fn stable_hash(&self, h: &mut StableHasher) {
        h.write_blob(self.text.bytes());
        hash_serde(&self.position, h);
    }
}

/// A range of a file's text, sharing the file's bytes (which `file_text` holds) rather
/// than copying them: every item's syntax keeps its text, and copies would hold the
/// crate's text a second time.
#[derive(Clone)]
pub struct TextSlice {
    text: Arc<[u8]>,
    lo: u32,
    hi: u32,
}

impl TextSlice {
    /// The bytes `lo..hi` of `text` (`None` when the range is not within it).
    pub fn new(text: &Arc<[u8]>, lo: usize, hi: usize) -> Option<TextSlice> {
        text.get(lo..hi)?;
        Some(TextSlice {
            text: Arc::clone(text),
            lo: u32::try_from(lo).ok()?,
            hi: u32::try_from(hi).ok()?,
        })
    }

    pub fn bytes(&self) -> &[u8] {
        &self.text[self.lo as usize..self.hi as usize]
    }
}

impl std::fmt::Debug for TextSlice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", String::from_utf8_lossy(self.bytes()))
    }
}

/// Where an item's positions are measured from (experiment E5). Rill's frontend keeps
/// spans relative to their item; `Absolute` makes an item's syntax carry its position in
/// the file, as a frontend with absolute spans would, so that moving an item invalidates
/// everything computed from it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum SpanMode {
    #[default]
    Relative,
    Absolute,
}

impl SpanMode {
    pub fn from_name(name: &str) -> Option<SpanMode> {
        match name {
            "relative" => Some(SpanMode::Relative),
            "absolute" => Some(SpanMode::Absolute),
            _ => None,
        }
    }
}

/// The skeleton of a file: its items with function bodies, constant values and struct
/// fields removed (all that building the item tree and resolving imports reads), item
/// offsets replaced by ordinals, and whether the parser reported errors (their positions
/// are not here). Small enough to persist for every file; a body edit leaves it as it was.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Skeleton {
    pub ast: SourceFileAst,
    pub parse_errors: bool,
}

/// What the module loader learns from reading a file, without its text: whether it could
/// be read, is within the size limit and is UTF-8.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum FileStatus {
    Ok,
    Unreadable {
        os: Option<i32>,
        message: String,
        /// As in `FileText::Error`.
        is_file: bool,
    },
    /// Too large or not UTF-8: the loader reports it and does not parse the file.
    Rejected,
}

/// A shared value compared by identity: for `no_hash` queries, whose values are neither
/// hashed nor compared for cutoff.
#[derive(Debug)]
pub struct Shared<T>(pub Arc<T>);

impl<T> Clone for Shared<T> {
    fn clone(&self) -> Self {
        Shared(self.0.clone())
    }
}

impl<T> PartialEq for Shared<T> {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl<T> std::ops::Deref for Shared<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

/// The crate's def map with positions: its files, item tree and module scopes, built
/// whole only to report the structure's diagnostics (the driver otherwise works from the
/// per-file item trees, [`ModuleItems`]).
#[derive(Debug)]
pub struct DefMap {
    pub krate: LoadedCrate,
    pub tree: ItemTree,
    pub resolved: ResolvedCrate,
}

/// What the rest of the compiler may know about a def, without positions. Serialized
/// compactly (see [`wire`]): its name only when it is not its path's last segment's, its
/// visibility as "its parent's" when it is restricted to its parent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DefInfo {
    pub kind: DefKind,
    pub path: DefPath,
    pub name: shared_frontend::intern::Symbol,
    pub parent: Option<DefId>,
    pub vis: Vis,
    /// Relative to the item.
    pub name_span: Span,
}

/// Where a def's syntax is: its file and its ordinal among the file's items (stable under
/// edits that do not add or remove items before it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct DefSource {
    pub file: PathBuf,
    pub ordinal: u32,
}

/// A module of the crate's tree, without positions: built from the files' `mod` items
/// alone ([`crate::skeleton::strip_to_modules`]), so adding or removing any other item
/// leaves it as it was.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModuleInfo {
    pub def: DefId,
    pub path: DefPath,
    pub parent: Option<DefId>,
    pub vis: Vis,
    /// The file module whose file holds this module's items: itself for the root and a
    /// `mod name;`, the enclosing one for an inline module.
    pub home: DefId,
    /// A file module's file (index in [`ModuleTree::files`]); `None` for an inline module
    /// and for a file module whose file could not be loaded (it is empty).
    pub file: Option<u32>,
    /// 0 for the root.
    pub depth: u32,
}

/// The crate's modules in the item tree's order (source order, a module before its
/// items), its files in load order, and what loading them found. Changes only when a
/// `mod` item or a file's status does.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModuleTree {
    pub modules: Vec<ModuleInfo>,
    /// Every source file, in load order (the root first).
    pub files: Vec<PathBuf>,
    /// The root file could not be read: the message.
    pub fatal: Option<String>,
    /// Loading reported something (a missing or unreadable file, a syntax error).
    pub has_errors: bool,
    /// A module's index in `modules`, built on first use (also for a value read from the
    /// cache).
    #[serde(skip)]
    index: std::sync::OnceLock<rustc_hash::FxHashMap<DefId, u32>>,
    /// Each file's file modules in module order, built on first use: every file's
    /// aggregates ask for theirs, and a search of every module for each file grew with
    /// the square of the crate's files.
    #[serde(skip)]
    by_file: std::sync::OnceLock<rustc_hash::FxHashMap<PathBuf, Vec<DefId>>>,
}

impl PartialEq for ModuleTree {
    fn eq(&self, other: &Self) -> bool {
        (&self.modules, &self.files, &self.fatal, self.has_errors)
            == (&other.modules, &other.files, &other.fatal, other.has_errors)
    }
}

impl ModuleTree {
    pub fn new(
        modules: Vec<ModuleInfo>,
        files: Vec<PathBuf>,
        fatal: Option<String>,
        has_errors: bool,
    ) -> ModuleTree {
        ModuleTree {
            modules,
            files,
            fatal,
            has_errors,
            index: std::sync::OnceLock::new(),
            by_file: std::sync::OnceLock::new(),
        }
    }

    pub fn idx(&self, module: DefId) -> Option<usize> {
        let index = self.index.get_or_init(|| {
            self.modules
                .iter()
                .enumerate()
                .map(|(i, m)| (m.def, i as u32))
                .collect()
        });
        index.get(&module).map(|&i| i as usize)
    }

    pub fn module(&self, module: DefId) -> Option<&ModuleInfo> {
        self.idx(module).map(|i| &self.modules[i])
    }

    /// A file module's file.
    pub fn file_of(&self, module: &ModuleInfo) -> Option<&PathBuf> {
        self.files.get(module.file? as usize)
    }

    /// The file modules loaded from `file` (two `mod` items may load one file).
    pub fn file_modules<'a>(
        &'a self,
        file: &'a std::path::Path,
    ) -> impl Iterator<Item = DefId> + 'a {
        let by_file = self.by_file.get_or_init(|| {
            let mut by_file: rustc_hash::FxHashMap<PathBuf, Vec<DefId>> = Default::default();
            for m in &self.modules {
                if m.home == m.def {
                    if let Some(f) = self.file_of(m) {
                        by_file.entry(f.clone()).or_default().push(m.def);
                    }
                }
            }
            by_file
        });
        by_file.get(file).into_iter().flatten().copied()
    }
}

/// A def declared in a file module's file (its own items and those of its inline
/// modules), without its position: its ordinal among the file's items instead.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemDef {
    pub id: DefId,
    pub info: DefInfo,
    pub ordinal: u32,
}

/// A `use` item of a module, without its position. Serialized compactly (see [`wire`]):
/// its visibility as "its module's" when it is restricted to its module.
#[derive(Clone, Debug, PartialEq)]
pub struct ModuleUse {
    pub module: DefId,
    pub vis: Vis,
    pub def: Arc<UseDef>,
}

/// The item tree of one file module: the defs of its file (inline modules included, file
/// modules' contents not), the `use` items of each of its modules, and whether building
/// it found an error (a name defined twice, an item named like a primitive type). Built
/// from the file's skeleton and the module's path only. Serialized compactly (see
/// [`wire`]): modules by index, a def's path as its parent's and its last segment.
#[derive(Clone, Debug, Default)]
pub struct ModuleItems {
    /// In source order (a module before its items).
    pub defs: Vec<ItemDef>,
    pub uses: Vec<ModuleUse>,
    pub has_errors: bool,
    /// The look-ups of [`ModuleItems::def`] and [`ModuleItems::binding`], built on first
    /// use (also for a value read from the cache) from the fields above, which must not
    /// change after it.
    index: std::sync::OnceLock<ItemsIndex>,
}

/// A file module's defs by id and its modules' item bindings by name.
#[derive(Clone, Debug, Default)]
struct ItemsIndex {
    /// Each def's index in [`ModuleItems::defs`] (the first, should one repeat).
    defs: rustc_hash::FxHashMap<DefId, u32>,
    /// What a name is bound to among a module's items.
    bindings: rustc_hash::FxHashMap<(DefId, Symbol), NameBindings>,
}

impl PartialEq for ModuleItems {
    fn eq(&self, other: &Self) -> bool {
        (&self.defs, &self.uses, self.has_errors) == (&other.defs, &other.uses, other.has_errors)
    }
}

impl ModuleItems {
    /// The item tree of a file module: its defs in source order, its modules' `use`
    /// items, and whether building it found an error.
    pub fn new(defs: Vec<ItemDef>, uses: Vec<ModuleUse>, has_errors: bool) -> ModuleItems {
        ModuleItems {
            defs,
            uses,
            has_errors,
            index: std::sync::OnceLock::new(),
        }
    }

    fn index(&self) -> &ItemsIndex {
        self.index.get_or_init(|| {
            let mut index = ItemsIndex::default();
            for (i, d) in self.defs.iter().enumerate() {
                index.defs.entry(d.id).or_insert(i as u32);
                let Some(parent) = d.info.parent else {
                    continue;
                };
                let bindings = index.bindings.entry((parent, d.info.name)).or_default();
                let slot = match d.info.kind.namespace() {
                    Namespace::Type => &mut bindings.types,
                    Namespace::Value => &mut bindings.values,
                };
                slot.get_or_insert(Binding {
                    res: Some(Res::Def(d.info.kind, d.id)),
                    vis: d.info.vis,
                    import: false,
                });
            }
            index
        })
    }

    pub fn def(&self, def: DefId) -> Option<&ItemDef> {
        let &i = self.index().defs.get(&def)?;
        self.defs.get(i as usize)
    }

    /// What `name` is bound to among the items of `module` (one of this file's): the
    /// first item of that name in each namespace.
    pub fn binding(&self, module: DefId, name: Symbol) -> NameBindings {
        self.index()
            .bindings
            .get(&(module, name))
            .copied()
            .unwrap_or_default()
    }
}

/// How many defs a shard holds on average, at most: the shard count is the power of two
/// that brings the average to between half this and this (see [`shard_count`]).
pub const DEFS_PER_SHARD: usize = 32;

/// The number of shards for `items` items: the smallest power of two that keeps the
/// average shard at most [`DEFS_PER_SHARD`] items (1 for a small crate). A function of the
/// program alone, so the same in every session and from scratch; adding or removing an
/// item changes it only when the count crosses a power of two.
pub fn shard_count(items: usize) -> u32 {
    (items.div_ceil(DEFS_PER_SHARD).max(1) as u32).next_power_of_two()
}

/// The shard of `def` among `count` shards (a power of two): the low bits of its id, the
/// stable hash of its def-path, so an item keeps its shard across sessions and while other
/// items come and go.
pub fn shard_of(def: DefId, count: u32) -> u32 {
    (def.0 as u32) & (count.max(1) - 1)
}

/// One shard of the index from a def to the file module that declares it (see
/// [`shard_of`]): a def id is a hash, so this is how a def's item tree is found.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct DefShard {
    /// (def, its file module), sorted by def.
    pub homes: Vec<(DefId, DefId)>,
}

impl DefShard {
    pub fn home(&self, def: DefId) -> Option<DefId> {
        self.homes
            .binary_search_by_key(&def, |h| h.0)
            .ok()
            .map(|i| self.homes[i].1)
    }
}

/// The compact serialized forms of [`DefInfo`], [`ModuleItems`], [`ModuleUse`] and
/// [`ScopeValue`]. They
/// are persisted (`cache_on_disk`) and their bytes are their fingerprints' input, so they
/// avoid repeating what a value already holds: a def's name when it is its path's last
/// segment, a visibility restricted to the def's own parent, a def's full path when its
/// parent's path is known, a module's 17-byte id where an index names it. Each form is
/// written as a serde struct (bincode in the cache), and decoding checks every index and
/// rebuilds exactly the value that was encoded.
mod wire {
    use super::*;
    use serde::de::Error as _;
    use shared_frontend::sema::def::DefPathSegment;

    /// A visibility, relative to a module (a def's parent, a `use`'s module).
    #[derive(Serialize, Deserialize)]
    enum VisW {
        Public,
        /// Restricted to the module it is relative to.
        Own,
        Restricted(DefId),
    }

    impl VisW {
        fn new(vis: Vis, own: Option<DefId>) -> VisW {
            match vis {
                Vis::Public => VisW::Public,
                Vis::Restricted(m) if Some(m) == own => VisW::Own,
                Vis::Restricted(m) => VisW::Restricted(m),
            }
        }

        fn get<E: serde::de::Error>(self, own: Option<DefId>) -> Result<Vis, E> {
            Ok(match self {
                VisW::Public => Vis::Public,
                VisW::Own => Vis::Restricted(own.ok_or_else(|| E::custom("no own module"))?),
                VisW::Restricted(m) => Vis::Restricted(m),
            })
        }
    }

    /// A def's name: `None` when it is its path's last segment's.
    fn name_w(info: &DefInfo) -> Option<Symbol> {
        match info.path.segments.last() {
            Some(last) if last.name == info.name => None,
            _ => Some(info.name),
        }
    }

    fn name_get<E: serde::de::Error>(name: Option<Symbol>, path: &DefPath) -> Result<Symbol, E> {
        match name {
            Some(n) => Ok(n),
            None => path
                .segments
                .last()
                .map(|s| s.name)
                .ok_or_else(|| E::custom("no name")),
        }
    }

    /// [`DefInfo`] serialized (decoded into [`DefInfoW`], the same fields owned).
    #[derive(Serialize)]
    struct DefInfoRef<'a> {
        kind: DefKind,
        path: &'a DefPath,
        name: Option<Symbol>,
        parent: Option<DefId>,
        vis: VisW,
        name_span: Span,
    }

    #[derive(Deserialize)]
    struct DefInfoW {
        kind: DefKind,
        path: DefPath,
        name: Option<Symbol>,
        parent: Option<DefId>,
        vis: VisW,
        name_span: Span,
    }

    impl Serialize for DefInfo {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            DefInfoRef {
                kind: self.kind,
                path: &self.path,
                name: name_w(self),
                parent: self.parent,
                vis: VisW::new(self.vis, self.parent),
                name_span: self.name_span,
            }
            .serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for DefInfo {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<DefInfo, D::Error> {
            let w = DefInfoW::deserialize(d)?;
            Ok(DefInfo {
                kind: w.kind,
                name: name_get(w.name, &w.path)?,
                vis: w.vis.get(w.parent)?,
                path: w.path,
                parent: w.parent,
                name_span: w.name_span,
            })
        }
    }

    #[derive(Serialize, Deserialize)]
    struct UseW {
        module: DefId,
        vis: VisW,
        def: Arc<UseDef>,
    }

    impl Serialize for ModuleUse {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            UseW {
                module: self.module,
                vis: VisW::new(self.vis, Some(self.module)),
                def: self.def.clone(),
            }
            .serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for ModuleUse {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ModuleUse, D::Error> {
            let w = UseW::deserialize(d)?;
            Ok(ModuleUse {
                module: w.module,
                vis: w.vis.get(Some(w.module))?,
                def: w.def,
            })
        }
    }

    /// A def's path: its parent's with one more segment, or written out.
    #[derive(Serialize, Deserialize)]
    enum PathW {
        Child(DefPathSegment),
        Full(DefPath),
    }

    /// A def of [`ModuleItems`]. A module reference is an index into the value's
    /// `modules`, then its `defs` (0: none; 1 + i: the i-th of the two lists together).
    #[derive(Serialize, Deserialize)]
    struct ItemDefW {
        id: DefId,
        kind: DefKind,
        parent: u32,
        path: PathW,
        name: Option<Symbol>,
        vis: VisW,
        name_span: Span,
        ordinal: u32,
    }

    #[derive(Serialize, Deserialize)]
    struct ModuleUseW {
        module: u32,
        vis: VisW,
        def: Arc<UseDef>,
    }

    /// [`ModuleItems`] serialized: the modules its defs and uses name that are not among
    /// its defs (each with its path when a def's path extends it), its defs, its uses.
    #[derive(Serialize, Deserialize)]
    struct ModuleItemsW {
        modules: Vec<(DefId, Option<DefPath>)>,
        defs: Vec<ItemDefW>,
        uses: Vec<ModuleUseW>,
        has_errors: bool,
    }

    impl Serialize for ModuleItems {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            // Each module's reference: a def before (for a def's parent) or any def (for
            // a use), else an entry of `modules`, added on first sight.
            enum Ref {
                None,
                Module(usize),
                Def(usize),
            }
            let mut modules: Vec<(DefId, Option<DefPath>)> = Vec::new();
            let mut module_at: rustc_hash::FxHashMap<DefId, usize> = Default::default();
            let mut def_at: rustc_hash::FxHashMap<DefId, usize> = Default::default();
            let mut refer =
                |id: DefId, def_at: &rustc_hash::FxHashMap<DefId, usize>| match def_at.get(&id) {
                    Some(&j) => Ref::Def(j),
                    None => Ref::Module(*module_at.entry(id).or_insert_with(|| {
                        modules.push((id, None));
                        modules.len() - 1
                    })),
                };
            let mut parents = Vec::with_capacity(self.defs.len());
            for (i, d) in self.defs.iter().enumerate() {
                parents.push(match d.info.parent {
                    None => Ref::None,
                    Some(p) => refer(p, &def_at),
                });
                def_at.entry(d.id).or_insert(i);
            }
            let uses_modules: Vec<Ref> =
                self.uses.iter().map(|u| refer(u.module, &def_at)).collect();
            let m = modules.len();
            let resolve = |r: &Ref| match *r {
                Ref::None => 0,
                Ref::Module(k) => 1 + k as u32,
                Ref::Def(j) => (1 + m + j) as u32,
            };
            let mut defs = Vec::with_capacity(self.defs.len());
            for (d, parent) in self.defs.iter().zip(&parents) {
                let parent = resolve(parent);
                // The parent's path, when known (a module's from the first child that
                // extends it).
                let segs = &d.info.path.segments;
                let child = match segs.split_last() {
                    Some((last, prefix)) if parent != 0 => {
                        let known = if parent as usize <= m {
                            let slot = &mut modules[parent as usize - 1].1;
                            slot.get_or_insert_with(|| DefPath {
                                segments: prefix.to_vec(),
                            })
                            .segments
                                == prefix
                        } else {
                            self.defs[parent as usize - 1 - m].info.path.segments == prefix
                        };
                        known.then_some(*last)
                    }
                    _ => None,
                };
                defs.push(ItemDefW {
                    id: d.id,
                    kind: d.info.kind,
                    parent,
                    path: match child {
                        Some(seg) => PathW::Child(seg),
                        None => PathW::Full(d.info.path.clone()),
                    },
                    name: name_w(&d.info),
                    vis: VisW::new(d.info.vis, d.info.parent),
                    name_span: d.info.name_span,
                    ordinal: d.ordinal,
                });
            }
            let uses = self
                .uses
                .iter()
                .zip(uses_modules)
                .map(|(u, r)| ModuleUseW {
                    module: resolve(&r),
                    vis: VisW::new(u.vis, Some(u.module)),
                    def: u.def.clone(),
                })
                .collect();
            ModuleItemsW {
                modules,
                defs,
                uses,
                has_errors: self.has_errors,
            }
            .serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for ModuleItems {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ModuleItems, D::Error> {
            let w = ModuleItemsW::deserialize(d)?;
            let mut defs: Vec<ItemDef> = Vec::with_capacity(w.defs.len());
            // Module `r` (not 0): its id and its path, if known.
            fn module<'a>(
                r: u32,
                modules: &'a [(DefId, Option<DefPath>)],
                defs: &'a [ItemDef],
            ) -> Option<(DefId, Option<&'a DefPath>)> {
                let i = (r as usize).checked_sub(1)?;
                match modules.get(i) {
                    Some((id, path)) => Some((*id, path.as_ref())),
                    None => defs
                        .get(i - modules.len())
                        .map(|d| (d.id, Some(&d.info.path))),
                }
            }
            let bad = || D::Error::custom("a module index out of range");
            for dw in w.defs {
                let (parent, parent_path) = match dw.parent {
                    0 => (None, None),
                    r => {
                        let (id, path) = module(r, &w.modules, &defs).ok_or_else(bad)?;
                        (Some(id), path)
                    }
                };
                let path = match dw.path {
                    PathW::Full(p) => p,
                    PathW::Child(seg) => parent_path
                        .ok_or_else(|| D::Error::custom("a path relative to no path"))?
                        .child(seg),
                };
                defs.push(ItemDef {
                    id: dw.id,
                    info: DefInfo {
                        kind: dw.kind,
                        name: name_get(dw.name, &path)?,
                        path,
                        parent,
                        vis: dw.vis.get(parent)?,
                        name_span: dw.name_span,
                    },
                    ordinal: dw.ordinal,
                });
            }
            let uses = w
                .uses
                .into_iter()
                .map(|u| {
                    let (module, _) = module(u.module, &w.modules, &defs).ok_or_else(bad)?;
                    Ok(ModuleUse {
                        module,
                        vis: u.vis.get(Some(module))?,
                        def: u.def,
                    })
                })
                .collect::<Result<_, D::Error>>()?;
            Ok(ModuleItems::new(defs, uses, w.has_errors))
        }
    }

    /// A binding of a [`ScopeValue`]: its visibility as 0 (public) or 1 + the index of
    /// the module it is restricted to.
    #[derive(Serialize, Deserialize)]
    struct BindingW {
        res: Option<Res>,
        vis: u32,
        import: bool,
    }

    /// [`ScopeValue`] serialized: the modules its bindings' visibilities are restricted
    /// to (nearly all to the scope's own module), then each namespace's bindings.
    #[derive(Serialize, Deserialize)]
    struct ScopeW {
        modules: Vec<DefId>,
        types: Vec<(Symbol, BindingW)>,
        values: Vec<(Symbol, BindingW)>,
    }

    impl Serialize for ScopeValue {
        fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut modules = Vec::new();
            let mut at: rustc_hash::FxHashMap<DefId, u32> = Default::default();
            let mut ns = |map: &rustc_hash::FxHashMap<Symbol, Binding>| {
                map.iter()
                    .map(|(&name, b)| {
                        let vis = match b.vis {
                            Vis::Public => 0,
                            Vis::Restricted(m) => *at.entry(m).or_insert_with(|| {
                                modules.push(m);
                                modules.len() as u32
                            }),
                        };
                        let (res, import) = (b.res, b.import);
                        (name, BindingW { res, vis, import })
                    })
                    .collect::<Vec<_>>()
            };
            let types = ns(&self.0.types);
            let values = ns(&self.0.values);
            ScopeW {
                modules,
                types,
                values,
            }
            .serialize(s)
        }
    }

    impl<'de> Deserialize<'de> for ScopeValue {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<ScopeValue, D::Error> {
            let w = ScopeW::deserialize(d)?;
            let ns = |list: Vec<(Symbol, BindingW)>| {
                list.into_iter()
                    .map(|(name, b)| {
                        let vis =
                            match b.vis {
                                0 => Vis::Public,
                                k => Vis::Restricted(*w.modules.get(k as usize - 1).ok_or_else(
                                    || D::Error::custom("a module index out of range"),
                                )?),
                            };
                        let (res, import) = (b.res, b.import);
                        Ok((name, Binding { res, vis, import }))
                    })
                    .collect::<Result<rustc_hash::FxHashMap<_, _>, D::Error>>()
            };
            Ok(ScopeValue(Arc::new(ModuleScope {
                types: ns(w.types)?,
                values: ns(w.values)?,
            })))
        }
    }
}

/// Every module's imports, resolved (positionless: only whether there are errors).
#[derive(Debug, Default)]
pub struct Imports {
    pub scopes: rustc_hash::FxHashMap<DefId, Arc<ModuleScope>>,
    pub has_errors: bool,
}

/// A module's scope, fingerprinted in a stable (sorted) order. Serialized compactly (see
/// [`wire`]): each module a visibility is restricted to once, then indices.
#[derive(Clone, Debug, PartialEq)]
pub struct ScopeValue(pub Arc<ModuleScope>);

impl StableHash<RillDb> for ScopeValue {
    fn stable_hash(&self, h: &mut StableHasher) {
        hash_serde(&self.0.sorted(), h)
    }
}

/// A diagnostic with absolute spans and files named by path (persistable): label `i` is
/// in file `files[i]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PDiag {
    pub diag: Diagnostic,
    pub files: Vec<Option<PathBuf>>,
}

impl PDiag {
    /// From a diagnostic whose labels are anchored (`file: Some`) in `sources`.
    pub fn from_anchored(d: &Diagnostic, sources: &SourceMap) -> PDiag {
        let mut diag = d.clone();
        let files = diag
            .labels
            .iter_mut()
            .map(|l| l.file.take().map(|f| sources.get(f).path.clone()))
            .collect();
        PDiag { diag, files }
    }

    /// From a diagnostic relative to an item at `offset` of `file`.
    pub fn from_relative(d: &Diagnostic, file: &std::path::Path, offset: u32) -> PDiag {
        let mut diag = d.clone();
        let files = diag
            .labels
            .iter_mut()
            .map(|l| {
                l.span = l.span.shift(offset);
                Some(file.to_path_buf())
            })
            .collect();
        PDiag { diag, files }
    }

    /// Back to an anchored diagnostic, with the file ids of `ids` (path → id).
    pub fn anchor(&self, ids: &dyn Fn(&std::path::Path) -> Option<FileId>) -> Diagnostic {
        let mut diag = self.diag.clone();
        for (l, f) in diag.labels.iter_mut().zip(&self.files) {
            *l = Label {
                file: f.as_deref().and_then(ids),
                ..l.clone()
            };
        }
        diag
    }
}

/// The part of the canonical order (`sema::recipe::canonical_order`) a check of an item
/// belongs to: its signature-level checks, its constant's value, its body. An item has at
/// most one run of checks in each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DiagPhase {
    Signature,
    Value,
    Body,
}

/// The diagnostics found by the checks of one file's items, anchored: per item and
/// phase, in the canonical order of the file's items, only where there are some.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FileDiagnostics {
    pub found: Vec<(DiagPhase, DefId, Vec<PDiag>)>,
}

impl FileDiagnostics {
    /// Whether any of them is an error.
    pub fn has_errors(&self) -> bool {
        self.found
            .iter()
            .any(|(_, _, diags)| diags.iter().any(|d| d.diag.is_error()))
    }
}

/// The result of a signature-level query: the value (`None`: the error was reported) and
/// the diagnostics, relative to the item.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SemaOut<T> {
    pub value: Option<T>,
    pub diagnostics: Vec<Diagnostic>,
}

impl<T: Serialize> StableHash<RillDb> for SemaOut<T> {
    fn stable_hash(&self, h: &mut StableHasher) {
        hash_serde(self, h)
    }
}

/// A type-checked body and its diagnostics (relative to the item).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypeckOut {
    pub thir: Arc<shared_frontend::sema::thir::Thir>,
    pub diagnostics: Vec<Diagnostic>,
}

/// Dependency granularity (experiment E7): per item (an item's analyses read only that
/// item's syntax) or per file (they also read the whole file, as a compiler that tracks
/// files would).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Granularity {
    #[default]
    Item,
    File,
}

impl Granularity {
    pub fn from_name(name: &str) -> Option<Granularity> {
        match name {
            "item" => Some(Granularity::Item),
            "file" => Some(Granularity::File),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use query::HasherKind;
    use shared_frontend::ir::{
        BasicBlock, BlockId, CallInst, DataId, Inst, IrBinOp, IrFunction, PanicKind, PrintArg,
        ScalarTy, Slot, SlotId, Terminator, VReg,
    };
    use shared_frontend::sema::def::{DefPathHash, DefPathSegment};
    use shared_frontend::sema::resolve::ModuleScope;

    fn fp(f: &IrFunction) -> query::Fingerprint {
        fp_with(HasherKind::default(), f)
    }

    fn fp_with(kind: HasherKind, f: &IrFunction) -> query::Fingerprint {
        let mut h = StableHasher::new(kind);
        StableHash::<RillDb>::stable_hash(f, &mut h);
        h.finish()
    }

    fn sample() -> IrFunction {
        let r = VReg;
        IrFunction {
            def: DefPathHash(0x1234_5678_9abc_def0_1122_3344_5566_7788),
            name: "crate::f".to_string(),
            params: vec![r(0), r(1)],
            sret: false,
            ret: Some(ScalarTy::I64),
            vregs: vec![ScalarTy::I64; 6],
            slots: vec![Slot { size: 16, align: 8 }],
            data: vec![Arc::from(&b"hello"[..])],
            blocks: vec![
                BasicBlock {
                    insts: vec![
                        Inst::Const {
                            dst: r(2),
                            value: 7,
                        },
                        Inst::Binary {
                            op: IrBinOp::Add,
                            dst: r(3),
                            lhs: r(0),
                            rhs: r(2),
                        },
                        Inst::SlotAddr {
                            dst: r(4),
                            slot: SlotId(0),
                        },
                        Inst::Store {
                            addr: r(4),
                            offset: 8,
                            src: r(3),
                        },
                        Inst::Call(Box::new(CallInst {
                            dst: Some(r(5)),
                            callee: DefPathHash(9),
                            args: vec![r(3), r(1)],
                        })),
                        Inst::Print(PrintArg::Str(DataId(0))),
                    ],
                    term: Terminator::Branch {
                        cond: r(5),
                        then_block: BlockId(1),
                        else_block: BlockId(2),
                    },
                },
                BasicBlock {
                    insts: vec![],
                    term: Terminator::Return(Some(r(3))),
                },
                BasicBlock {
                    insts: vec![],
                    term: Terminator::Panic(PanicKind::IndexOutOfBounds {
                        index: r(1),
                        len: 4,
                    }),
                },
            ],
        }
    }

    fn seg(name: &str, ns: Namespace, disambiguator: u32) -> DefPathSegment {
        DefPathSegment {
            ns,
            name: Symbol::intern(name),
            disambiguator,
        }
    }

    fn use_def(name: &str) -> Arc<UseDef> {
        use shared_frontend::syntax::ast::{
            Path, PathSegment, PathSegmentKind, UseTree, UseTreeKind,
        };
        let segment = PathSegment {
            kind: PathSegmentKind::Name(Symbol::intern(name)),
            span: Span { lo: 4, hi: 9 },
        };
        Arc::new(UseDef {
            tree: UseTree {
                prefix: Path {
                    segments: vec![segment].into(),
                    span: Span { lo: 4, hi: 9 },
                },
                kind: UseTreeKind::Simple { rename: None },
                span: Span { lo: 4, hi: 9 },
            },
        })
    }

    /// A file module's items: a function, an inline module with a struct and a private
    /// function, a duplicate, a def whose path does not extend its parent's, a def without
    /// a parent, visibilities restricted to the parent and elsewhere, and uses in the
    /// file module, the inline module and a module that is neither.
    fn items() -> ModuleItems {
        let file = DefPath::root().child(seg("geometry", Namespace::Type, 0));
        let file_id = file.hash();
        let def = |path: DefPath, kind, parent, vis, name: &str, ordinal| ItemDef {
            id: path.hash(),
            info: DefInfo {
                kind,
                name: Symbol::intern(name),
                path,
                parent,
                vis,
                name_span: Span {
                    lo: 3,
                    hi: 3 + name.len() as u32,
                },
            },
            ordinal,
        };
        let f = file.child(seg("area", Namespace::Value, 0));
        let inner = file.child(seg("shapes", Namespace::Type, 0));
        let inner_id = inner.hash();
        let elsewhere = DefPath::root().child(seg("other", Namespace::Type, 0));
        ModuleItems::new(
            vec![
                def(
                    f.clone(),
                    DefKind::Fn,
                    Some(file_id),
                    Vis::Public,
                    "area",
                    0,
                ),
                def(
                    inner.clone(),
                    DefKind::Mod,
                    Some(file_id),
                    Vis::Restricted(file_id),
                    "shapes",
                    1,
                ),
                def(
                    inner.child(seg("Rect", Namespace::Type, 0)),
                    DefKind::Struct,
                    Some(inner_id),
                    Vis::Public,
                    "Rect",
                    2,
                ),
                def(
                    inner.child(seg("side", Namespace::Value, 0)),
                    DefKind::Fn,
                    Some(inner_id),
                    Vis::Restricted(inner_id),
                    "side",
                    3,
                ),
                def(
                    inner.child(seg("side", Namespace::Value, 1)),
                    DefKind::Fn,
                    Some(inner_id),
                    Vis::Restricted(file_id),
                    "side",
                    4,
                ),
                def(
                    elsewhere.child(seg("odd", Namespace::Value, 0)),
                    DefKind::Const,
                    Some(inner_id),
                    Vis::Restricted(elsewhere.hash()),
                    "odd",
                    5,
                ),
                def(
                    f.clone(),
                    DefKind::Fn,
                    Some(file_id),
                    Vis::Public,
                    "renamed",
                    6,
                ),
                def(DefPath::root(), DefKind::Mod, None, Vis::Public, "crate", 7),
            ],
            vec![
                ModuleUse {
                    module: file_id,
                    vis: Vis::Restricted(file_id),
                    def: use_def("a"),
                },
                ModuleUse {
                    module: inner_id,
                    vis: Vis::Public,
                    def: use_def("b"),
                },
                ModuleUse {
                    module: elsewhere.hash(),
                    vis: Vis::Restricted(file_id),
                    def: use_def("c"),
                },
            ],
            true,
        )
    }

    /// `def` and `binding` answer from an index: the first def of an id, and the first
    /// item of a name in each namespace among a module's own items, as a scan of the defs
    /// in source order finds them; also on a value decoded from the cache.
    #[test]
    fn item_look_ups_find_the_first_match_in_source_order() {
        let items = items();
        let decoded =
            query::codec_decode::<ModuleItems>(&query::codec_encode(&items).unwrap()).unwrap();
        for items in [&items, &decoded] {
            for d in &items.defs {
                let first = items.defs.iter().find(|e| e.id == d.id);
                assert_eq!(items.def(d.id).map(|e| e.ordinal), first.map(|e| e.ordinal));
            }
            let area = items.defs[0].id;
            assert_eq!(
                items.def(area).map(|d| d.info.name.as_str().to_string()),
                Some("area".into())
            );
            for d in &items.defs {
                let Some(module) = d.info.parent else {
                    continue;
                };
                let mut scan = NameBindings::default();
                for e in items.defs.iter().filter(|e| e.info.parent == Some(module)) {
                    if e.info.name != d.info.name {
                        continue;
                    }
                    let slot = match e.info.kind.namespace() {
                        Namespace::Type => &mut scan.types,
                        Namespace::Value => &mut scan.values,
                    };
                    slot.get_or_insert(Binding {
                        res: Some(Res::Def(e.info.kind, e.id)),
                        vis: e.info.vis,
                        import: false,
                    });
                }
                assert_eq!(items.binding(module, d.info.name), scan);
            }
            // Two items named `side` in one module: the first is bound.
            let inner = items.defs[1].id;
            let side = items.binding(inner, Symbol::intern("side"));
            assert_eq!(
                side.values.and_then(|b| b.res),
                Some(Res::Def(DefKind::Fn, items.defs[3].id))
            );
            assert_eq!(side.types, None);
            // A name of another module, and a module that has no items.
            assert_eq!(
                items.binding(inner, Symbol::intern("area")),
                NameBindings::default()
            );
            assert_eq!(
                items.binding(area, Symbol::intern("side")),
                NameBindings::default()
            );
        }
    }

    #[test]
    fn compact_forms_round_trip() {
        let items = items();
        let bytes = query::codec_encode(&items).unwrap();
        assert_eq!(query::codec_decode::<ModuleItems>(&bytes).unwrap(), items);
        let bytes = query::codec_encode(&items.uses).unwrap();
        assert_eq!(
            query::codec_decode::<Vec<ModuleUse>>(&bytes).unwrap(),
            items.uses
        );
        for d in &items.defs {
            let info = query::codec_encode(&d.info).unwrap();
            assert_eq!(query::codec_decode::<DefInfo>(&info).unwrap(), d.info);
        }
        let mut scope = ModuleScope::default();
        for (i, d) in items.defs.iter().enumerate() {
            let map = if i % 2 == 0 {
                &mut scope.types
            } else {
                &mut scope.values
            };
            map.insert(
                d.info.name,
                Binding {
                    res: (i != 3).then_some(Res::Def(d.info.kind, d.id)),
                    vis: d.info.vis,
                    import: i % 3 == 0,
                },
            );
        }
        let scope = ScopeValue(Arc::new(scope));
        let bytes = query::codec_encode(&scope).unwrap();
        assert_eq!(query::codec_decode::<ScopeValue>(&bytes).unwrap(), scope);
    }

    #[test]
    fn compact_forms_are_smaller() {
        // What the derived serialization wrote: every path in full, every id.
        #[derive(Serialize)]
        struct Plain<'a> {
            defs: Vec<(
                DefId,
                DefKind,
                &'a DefPath,
                Symbol,
                Option<DefId>,
                Vis,
                Span,
                u32,
            )>,
            uses: Vec<(DefId, Vis, &'a UseDef)>,
            has_errors: bool,
        }
        let items = items();
        let plain = Plain {
            defs: items
                .defs
                .iter()
                .map(|d| {
                    let i = &d.info;
                    (
                        d.id,
                        i.kind,
                        &i.path,
                        i.name,
                        i.parent,
                        i.vis,
                        i.name_span,
                        d.ordinal,
                    )
                })
                .collect(),
            uses: items
                .uses
                .iter()
                .map(|u| (u.module, u.vis, &*u.def))
                .collect(),
            has_errors: true,
        };
        let plain = query::codec_encode(&plain).unwrap().len();
        let compact = query::codec_encode(&items).unwrap().len();
        assert!(compact * 10 < plain * 8, "{compact} bytes against {plain}");
    }

    #[test]
    fn malformed_compact_forms_do_not_decode() {
        // Module references past the lists, in a def and in a use.
        let mut bytes = query::codec_encode(&items()).unwrap();
        let mut decoded = 0;
        for at in 0..bytes.len() {
            let old = bytes[at];
            bytes[at] = 200;
            if let Ok(v) = query::codec_decode::<ModuleItems>(&bytes) {
                decoded += 1;
                assert_ne!(v, items(), "byte {at}");
            }
            bytes[at] = old;
        }
        assert!(decoded < bytes.len());
        // A path relative to no parent; a visibility relative to no parent.
        #[derive(Serialize)]
        enum PathW {
            Child(DefPathSegment),
        }
        #[derive(Serialize)]
        enum VisW {
            _Public,
            Own,
        }
        let child = (
            DefKind::Fn,
            PathW::Child(seg("f", Namespace::Value, 0)),
            None::<Symbol>,
            None::<DefId>,
            VisW::Own,
            Span::DUMMY,
        );
        let bytes = query::codec_encode(&child).unwrap();
        assert!(query::codec_decode::<DefInfo>(&bytes).is_err());
        let own = (
            DefKind::Fn,
            DefPath::root().child(seg("f", Namespace::Value, 0)),
            None::<Symbol>,
            None::<DefId>,
            VisW::Own,
            Span::DUMMY,
        );
        let bytes = query::codec_encode(&own).unwrap();
        assert!(query::codec_decode::<DefInfo>(&bytes).is_err());
    }

    #[test]
    fn ir_fingerprint_sees_every_field() {
        let base = sample();
        assert_eq!(fp(&base), fp(&base.clone()));
        let edits: Vec<fn(&mut IrFunction)> = vec![
            |f| f.def = DefPathHash(1),
            |f| f.name.push('x'),
            |f| {
                f.params.pop();
            },
            |f| f.sret = true,
            |f| f.ret = None,
            |f| f.vregs[5] = ScalarTy::Bool,
            |f| f.slots[0].align = 16,
            |f| f.data[0] = Arc::from(&b"hellp"[..]),
            |f| {
                f.blocks[0].insts[0] = Inst::Const {
                    dst: VReg(2),
                    value: 8,
                }
            },
            |f| {
                f.blocks[0].insts[1] = Inst::Binary {
                    op: IrBinOp::Sub,
                    dst: VReg(3),
                    lhs: VReg(0),
                    rhs: VReg(2),
                }
            },
            |f| {
                f.blocks[0].insts[3] = Inst::Store {
                    addr: VReg(4),
                    offset: 0,
                    src: VReg(3),
                }
            },
            |f| {
                if let Inst::Call(c) = &mut f.blocks[0].insts[4] {
                    c.args.reverse();
                }
            },
            |f| f.blocks[0].insts[5] = Inst::Print(PrintArg::Int(VReg(0))),
            |f| f.blocks[0].insts.swap(0, 2),
            |f| f.blocks[1].term = Terminator::Return(None),
            |f| {
                f.blocks[2].term = Terminator::Panic(PanicKind::IndexOutOfBounds {
                    index: VReg(1),
                    len: 5,
                })
            },
            // An instruction moved across a block boundary.
            |f| {
                let i = f.blocks[0].insts.pop().expect("sample has instructions");
                f.blocks[1].insts.push(i);
            },
        ];
        let mut seen = vec![fp(&base)];
        for (i, edit) in edits.iter().enumerate() {
            let mut f = base.clone();
            edit(&mut f);
            assert_ne!(f, base, "edit {i} changes the function");
            let h = fp(&f);
            assert!(
                !seen.contains(&h),
                "edit {i} gives a fingerprint seen before"
            );
            seen.push(h);
        }
        // The fingerprint hashes the whole function under every hasher.
        for kind in HasherKind::ALL {
            let mut f = base.clone();
            f.blocks[2].term = Terminator::Unreachable;
            assert_ne!(fp_with(kind, &base), fp_with(kind, &f), "{kind:?}");
        }
    }
}

//! Listings of code blobs with iced-x86's NASM formatter: one listing per function, with
//! labels for jump targets (`L0`, `L1`, … in address order), relocation targets named
//! (`call crate::fib`, `call [rel rt_print_i64]`, `cmp rsp, [rel ctx_stack_limit]`) and
//! the function's data blobs (`data0`) after the code.

use std::fmt::Write;

use iced_x86::{
    Decoder, DecoderOptions, Formatter, Instruction, NasmFormatter, OpKind, SymbolResolver,
    SymbolResult,
};
use rustc_hash::FxHashMap;
use shared_frontend::sema::def::DefId;

use crate::blob::{CodeBlob, RelocTarget};

/// Where relocation targets pretend to be while decoding.
const FAKE_BASE: u64 = 0x7000_0000;

struct Symbols {
    names: FxHashMap<u64, String>,
}

impl SymbolResolver for Symbols {
    fn symbol(
        &mut self,
        instruction: &Instruction,
        operand: u32,
        _instruction_operand: Option<u32>,
        address: u64,
        _address_size: u32,
    ) -> Option<SymbolResult<'_>> {
        let kind = instruction.op_kind(operand);
        let relevant = matches!(kind, OpKind::NearBranch64 | OpKind::Memory)
            && (kind != OpKind::Memory || instruction.is_ip_rel_memory_operand());
        if !relevant {
            return None;
        }
        self.names
            .get(&address)
            .map(|n| SymbolResult::with_str(address, n.as_str()))
    }
}

/// The listing of `blob`, callees shown by def-path hash.
pub fn disassemble(f_name: &str, blob: &CodeBlob) -> String {
    disassemble_with(f_name, blob, &|_| None)
}

/// The listing of `blob`, callees named by `callee_name` where it knows them.
pub fn disassemble_with(
    f_name: &str,
    blob: &CodeBlob,
    callee_name: &dyn Fn(DefId) -> Option<String>,
) -> String {
    let code_len = (blob.code_len as usize).min(blob.bytes.len());
    let mut code = blob.bytes[..code_len].to_vec();
    let mut names: FxHashMap<u64, String> = FxHashMap::default();
    for (i, r) in blob.relocations.iter().enumerate() {
        let off = r.offset as usize;
        if off + 4 > code_len {
            continue;
        }
        let fake = FAKE_BASE + 16 * i as u64;
        let v = fake as i64 + r.addend as i64 - off as i64;
        code[off..off + 4].copy_from_slice(&(v as i32).to_le_bytes());
        let name = match r.target {
            RelocTarget::Function { callee, .. } => {
                callee_name(callee).unwrap_or_else(|| format!("fn_{callee}"))
            }
            RelocTarget::Runtime(f) => f.name().to_string(),
            RelocTarget::Context(c) => c.name().to_string(),
        };
        names.insert(fake, name);
    }
    for (i, &(off, _)) in blob.data.iter().enumerate() {
        names.insert(off as u64, format!("data{i}"));
    }

    // Pass 1: branch targets inside the code become labels.
    let mut targets: Vec<u64> = Vec::new();
    let mut decoder = Decoder::with_ip(64, &code, 0, DecoderOptions::NONE);
    let mut ins = Instruction::default();
    while decoder.can_decode() {
        decoder.decode_out(&mut ins);
        if ins.op0_kind() == OpKind::NearBranch64 {
            let t = ins.near_branch_target();
            if t < code_len as u64 {
                targets.push(t);
            }
        }
    }
    targets.sort_unstable();
    targets.dedup();
    let mut label_of: FxHashMap<u64, usize> = FxHashMap::default();
    for (i, &t) in targets.iter().enumerate() {
        label_of.insert(t, i);
        names.insert(t, format!("L{i}"));
    }

    let mut fmt = NasmFormatter::with_options(Some(Box::new(Symbols { names })), None);
    let o = fmt.options_mut();
    o.set_space_after_operand_separator(true);
    o.set_hex_prefix("0x");
    o.set_hex_suffix("");
    o.set_uppercase_hex(false);
    o.set_show_branch_size(false);
    o.set_branch_leading_zeros(false);
    o.set_leading_zeros(false);

    let mut out = String::new();
    let _ = writeln!(out, "{f_name}:");
    let mut decoder = Decoder::with_ip(64, &code, 0, DecoderOptions::NONE);
    let mut text = String::new();
    while decoder.can_decode() {
        decoder.decode_out(&mut ins);
        if let Some(l) = label_of.get(&ins.ip()) {
            let _ = writeln!(out, "L{l}:");
        }
        text.clear();
        fmt.format(&ins, &mut text);
        let _ = writeln!(out, "  {:04x}  {text}", ins.ip());
    }
    for (i, &(off, len)) in blob.data.iter().enumerate() {
        let bytes = blob
            .bytes
            .get(off as usize..(off + len) as usize)
            .unwrap_or(&[]);
        match std::str::from_utf8(bytes) {
            Ok(s) => {
                let _ = writeln!(out, "data{i}:  {off:04x}  {s:?}");
            }
            Err(_) => {
                let hex: Vec<String> = bytes.iter().map(|b| format!("{b:02x}")).collect();
                let _ = writeln!(out, "data{i}:  {off:04x}  {}", hex.join(" "));
            }
        }
    }
    out
}

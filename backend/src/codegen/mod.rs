//! Per-function code generation: [`codegen`] turns one [`IrFunction`] into a
//! [`CodeBlob`] — validation ([`validate`]), analyses and register allocation
//! ([`analysis`]), then instruction selection and encoding ([`emit`]) into a
//! `VecAssembler` based at address 0, so the bytes depend on the IR only.

mod analysis;
mod emit;
mod regs;
mod validate;

use dynasmrt::{DynasmApi, DynasmLabelApi};
use shared_frontend::ir::IrFunction;
use shared_frontend::spare;

use crate::blob::{CodeBlob, Relocation, RuntimeFn};
use emit::{Asm, AsmCapacity, Emitter};

/// Compiles one function. Malformed IR (see [`validate`]) compiles to a function that
/// ends the run with [`shared_frontend::ir::interp::ExitStatus::InternalError`] when
/// called.
pub fn codegen(f: &IrFunction) -> CodeBlob {
    let mut bufs = spare::take(&BUFS);
    let facts = match validate::validate(f, std::mem::take(&mut bufs.facts)) {
        Ok(facts) => facts,
        Err(msg) => return error_blob(f, &format!("{}: {msg}", f.name)),
    };
    let a = analysis::analyze(f, facts, &mut bufs);
    let blob = emit_function(f, &a);
    bufs.reclaim(a);
    spare::give_back(&BUFS, bufs);
    blob
}

thread_local! {
    /// The analysis buffers, reused by the [`codegen`] calls of one thread.
    static BUFS: spare::Spare<analysis::Bufs> =
        const { std::cell::Cell::new(None) };
}

/// Instruction selection and encoding of an analyzed function.
fn emit_function(f: &IrFunction, a: &analysis::Analysis) -> CodeBlob {
    let frame = emit::layout_frame(f, a);
    let mut ops = AsmCapacity {
        bytes: code_capacity(f, a),
        // A label per block and per data blob, the stack-limit stub's and the name's.
        dynamic_labels: f.blocks.len() + f.data.len() + 2,
        dynamic_references: a.entries.len(),
        ..AsmCapacity::default()
    }
    .assembler();
    let blocks = (0..f.blocks.len())
        .map(|_| ops.new_dynamic_label())
        .collect();
    let data = (0..f.data.len()).map(|_| ops.new_dynamic_label()).collect();
    let limit_stub = ops.new_dynamic_label();
    let mut em = Emitter {
        f,
        a,
        frame: &frame,
        ops,
        // At most two per call and per terminator (a runtime call, or a stack check),
        // the prologue's stack check and the stack-limit stub's runtime call.
        relocs: Vec::with_capacity(2 * (a.calls as usize + f.blocks.len()) + 3),
        blocks,
        data,
        limit_stub,
        limit_used: false,
        name_label: None,
    };
    em.prologue();
    for &b in &a.emit_order {
        em.block(b);
    }
    if em.limit_used {
        em.limit_stub_code();
    }
    let Emitter {
        mut ops,
        relocs,
        data,
        name_label,
        ..
    } = em;
    let code_len = ops.offset().0 as u32;
    let mut data_offsets = Vec::with_capacity(f.data.len());
    for (blob, &l) in f.data.iter().zip(&data) {
        align16(&mut ops);
        data_offsets.push((ops.offset().0 as u32, blob.len() as u32));
        ops.dynamic_label(l);
        ops.extend(blob.iter().copied());
    }
    if let Some(l) = name_label {
        ops.dynamic_label(l);
        ops.extend(f.name.bytes());
    }
    match ops.finalize() {
        Ok(bytes) => {
            // The relocations' room was made for the most a function of this shape could
            // need (two per call and per block): at 100k lines, 2.7 times what the
            // functions use. A blob outlives its function's IR (held for the link, and by
            // the query driver's memo), so it keeps only the relocations it has. (The
            // code's room is less than twice what it uses, 1.7 times at 100k lines; a
            // block shrunk by less than half would stay where it is.)
            let mut relocations = relocs;
            relocations.shrink_to_fit();
            CodeBlob {
                bytes,
                code_len,
                data: data_offsets,
                params: f.params.len() as u32,
                relocations,
            }
        }
        Err(e) => error_blob(f, &format!("{}: assembler error: {e:?}", f.name)),
    }
}

/// Room for the whole blob, so that the buffer seldom grows while encoding: 16 bytes of
/// code per entry (typical programs take about 13), then the data (each aligned to 16)
/// and the name.
fn code_capacity(f: &IrFunction, a: &analysis::Analysis) -> usize {
    let data: usize = f.data.iter().map(|d| d.len() + 15).sum();
    16 * a.entries.len() + 64 + data + f.name.len()
}

fn align16(ops: &mut Asm) {
    while ops.offset().0 % 16 != 0 {
        ops.push(0);
    }
}

/// A function that reports `msg` as an internal error when called.
fn error_blob(f: &IrFunction, msg: &str) -> CodeBlob {
    let mut ops = Asm::new(0);
    let l = ops.new_dynamic_label();
    let mut relocs: Vec<Relocation> = Vec::new();
    dynasmrt::dynasm!(ops ; .arch x64 ; sub rsp, 8 ; lea rsi, [=>l] ; mov edx, msg.len() as i32);
    // mov rdi, [rip + state]; call [rip + rt_internal_error]
    ops.extend([0x48, 0x8b, 0x3d]);
    relocs.push(Relocation {
        offset: ops.offset().0 as u32,
        target: crate::blob::RelocTarget::Context(crate::blob::ContextField::State),
        addend: -4,
    });
    ops.extend([0u8; 4]);
    ops.extend([0xff, 0x15]);
    relocs.push(Relocation {
        offset: ops.offset().0 as u32,
        target: crate::blob::RelocTarget::Runtime(RuntimeFn::InternalError),
        addend: -4,
    });
    ops.extend([0u8; 4]);
    let code_len = ops.offset().0 as u32;
    align16(&mut ops);
    ops.dynamic_label(l);
    ops.extend(msg.bytes());
    CodeBlob {
        bytes: ops.finalize().unwrap_or_else(|_| vec![0x0f, 0x0b]),
        code_len,
        data: Vec::new(),
        params: f.params.len() as u32,
        relocations: relocs,
    }
}

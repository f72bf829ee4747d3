//! Per-function code generation: [`codegen`] turns one [`IrFunction`] into a
//! [`CodeBlob`] — validation ([`validate`]), analyses and register allocation
//! ([`analysis`]), then instruction selection ([`emit`]) and encoding ([`encode`]) into a
//! buffer based at address 0, so the bytes depend on the IR only.

mod analysis;
mod emit;
mod encode;
mod regs;
mod validate;

use std::cell::RefCell;

use shared_frontend::ir::IrFunction;

use crate::blob::{CodeBlob, Relocation, RuntimeFn};
use analysis::Scratch;
use emit::Emitter;
use encode::{Asm, Label};

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// Compiles one function. Malformed IR (see [`validate`]) compiles to a function that
/// ends the run with [`shared_frontend::ir::interp::ExitStatus::InternalError`] when
/// called.
pub fn codegen(f: &IrFunction) -> CodeBlob {
    SCRATCH.with_borrow_mut(|s| codegen_with(f, s))
}

fn codegen_with(f: &IrFunction, s: &mut Scratch) -> CodeBlob {
    if let Err(msg) = validate::validate(f, &mut s.facts) {
        return error_blob(f, &format!("{}: {msg}", f.name));
    }
    let a = analysis::analyze(f, s);
    let frame = emit::layout_frame(f, &a);
    // Labels: the blocks, the data, the stack-limit stub (see [`Emitter`]).
    let ops = Asm::with_buffers(
        code_capacity(f, &a),
        f.blocks.len() + f.data.len() + 1,
        std::mem::take(&mut s.labels),
        std::mem::take(&mut s.fixups),
    );
    let limit_stub = Label::new((f.blocks.len() + f.data.len()) as u32);
    let mut em = Emitter {
        f,
        a: &a,
        frame: &frame,
        ops,
        // At most two per call and per terminator (a runtime call, or a stack check),
        // the prologue's stack check and the stack-limit stub's runtime call.
        relocs: Vec::with_capacity(2 * (a.calls as usize + f.blocks.len()) + 3),
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
        name_label,
        ..
    } = em;
    let code_len = ops.offset();
    let mut data_offsets = Vec::with_capacity(f.data.len());
    for (d, blob) in f.data.iter().enumerate() {
        let l = Label::new((f.blocks.len() + d) as u32);
        ops.align16();
        data_offsets.push((ops.offset(), blob.len() as u32));
        ops.bind(l);
        ops.bytes(blob);
    }
    if let Some(l) = name_label {
        ops.bind(l);
        ops.bytes(f.name.as_bytes());
    }
    let (res, labels, fixups) = ops.finish();
    (s.labels, s.fixups) = (labels, fixups);
    a.recycle(s);
    match res {
        Ok(bytes) => CodeBlob {
            bytes,
            code_len,
            data: data_offsets,
            params: f.params.len() as u32,
            relocations: relocs,
        },
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

/// A function that reports `msg` as an internal error when called.
fn error_blob(f: &IrFunction, msg: &str) -> CodeBlob {
    let mut ops = Asm::with_capacity(64 + msg.len(), 1);
    let l = Label::new(0);
    let mut relocs: Vec<Relocation> = Vec::new();
    ops.bytes(encode::SUB_RSP_8);
    ops.lea_label(regs::RSI, l);
    ops.mov_r32_fixed(regs::RDX, msg.len() as i32);
    // mov rdi, [rip + state]; call [rip + rt_internal_error]
    ops.bytes(&[0x48, 0x8b, 0x3d]);
    relocs.push(Relocation {
        offset: ops.offset(),
        target: crate::blob::RelocTarget::Context(crate::blob::ContextField::State),
        addend: -4,
    });
    ops.bytes(&[0; 4]);
    ops.bytes(&[0xff, 0x15]);
    relocs.push(Relocation {
        offset: ops.offset(),
        target: crate::blob::RelocTarget::Runtime(RuntimeFn::InternalError),
        addend: -4,
    });
    ops.bytes(&[0; 4]);
    let code_len = ops.offset();
    ops.align16();
    ops.bind(l);
    ops.bytes(msg.as_bytes());
    CodeBlob {
        bytes: ops.finalize().unwrap_or_else(|_| vec![0x0f, 0x0b]),
        code_len,
        data: Vec::new(),
        params: f.params.len() as u32,
        relocations: relocs,
    }
}

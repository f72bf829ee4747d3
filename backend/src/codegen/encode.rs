//! The assembling buffer and the x86-64 encodings the code generator emits. Each encoder
//! writes the bytes dynasm chose for the same instruction with run-time registers (the
//! code was once assembled with dynasm, and blobs are compared byte for byte): a REX
//! prefix whenever a register operand is not fixed (even where it adds nothing), every
//! `[base + disp]` through a SIB byte with a 32-bit displacement, `[base + index * s]`
//! with an 8-bit zero displacement, `cmp` with an immediate in its 32-bit form, and jumps
//! and RIP-relative operands to labels with 32-bit offsets. The tests at the end check
//! every encoder against dynasm.

/// A position in the code, bound once with [`Asm::bind`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Label(u32);

impl Label {
    /// The label numbered `n` (see [`Asm::with_capacity`]).
    pub fn new(n: u32) -> Label {
        Label(n)
    }
}

/// Bytes, labels and the 32-bit PC-relative fields that refer to them.
pub(crate) struct Asm {
    buf: Vec<u8>,
    /// Per label, its offset ([`UNBOUND`] until bound).
    labels: Vec<u32>,
    fixups: Vec<Fixup>,
}

/// The offset of a rel32 field (the last four bytes of its instruction) and its label.
pub(crate) type Fixup = (u32, Label);

use super::regs::RSP;

const UNBOUND: u32 = u32::MAX;

/// Condition codes, as the low nibble of `jcc` and `setcc`.
pub(crate) mod cc {
    pub const B: u8 = 0x2;
    pub const AE: u8 = 0x3;
    pub const E: u8 = 0x4;
    pub const NE: u8 = 0x5;
    pub const BE: u8 = 0x6;
    pub const A: u8 = 0x7;
    pub const L: u8 = 0xc;
    pub const GE: u8 = 0xd;
    pub const LE: u8 = 0xe;
    pub const G: u8 = 0xf;
}

/// ALU operations: the `/digit` of their immediate forms; `8 * digit + 1` is the
/// `r/m, reg` opcode and `8 * digit + 3` the `reg, r/m` one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Alu {
    Add = 0,
    Or = 1,
    And = 4,
    Sub = 5,
    Xor = 6,
    Cmp = 7,
}

/// Shifts: the `/digit` of `C1` and `D3`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shift {
    Shl = 4,
    Shr = 5,
    Sar = 7,
}

/// One-operand `F7` instructions, by `/digit`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unary {
    Not = 2,
    Neg = 3,
    Div = 6,
    Idiv = 7,
}

/// Operand widths of memory accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Width {
    B8,
    B16,
    B32,
    B64,
}

#[inline(always)]
fn rex(w: bool, reg: u8, index: u8, base: u8) -> u8 {
    0x40 | (w as u8) << 3 | (reg & 8) >> 1 | (index & 8) >> 2 | (base & 8) >> 3
}

#[inline(always)]
fn modrm(md: u8, reg: u8, rm: u8) -> u8 {
    md << 6 | (reg & 7) << 3 | (rm & 7)
}

/// `[base + disp32]` after the opcode: ModRM, a SIB without index, the displacement.
#[inline(always)]
fn mem_tail(reg: u8, base: u8, disp: i32) -> [u8; 6] {
    let d = disp.to_le_bytes();
    [modrm(2, reg, 4), modrm(0, 4, base), d[0], d[1], d[2], d[3]]
}

impl Asm {
    /// An empty buffer with labels `0..labels` created (unbound).
    pub fn with_capacity(bytes: usize, labels: usize) -> Asm {
        Asm::with_buffers(
            bytes,
            labels,
            Vec::with_capacity(labels + 1),
            Vec::with_capacity(labels),
        )
    }

    /// The same, keeping its labels and label references in the given buffers (cleared
    /// first; [`Asm::finish`] gives them back).
    pub fn with_buffers(
        bytes: usize,
        nlabels: usize,
        mut labels: Vec<u32>,
        mut fixups: Vec<Fixup>,
    ) -> Asm {
        labels.clear();
        labels.resize(nlabels, UNBOUND);
        fixups.clear();
        Asm {
            buf: Vec::with_capacity(bytes),
            labels,
            fixups,
        }
    }

    pub fn offset(&self) -> u32 {
        self.buf.len() as u32
    }

    pub fn new_label(&mut self) -> Label {
        self.labels.push(UNBOUND);
        Label(self.labels.len() as u32 - 1)
    }

    pub fn bind(&mut self, l: Label) {
        self.labels[l.0 as usize] = self.offset();
    }

    #[inline(always)]
    pub fn bytes(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }

    pub fn align16(&mut self) {
        let n = self.buf.len().next_multiple_of(16);
        self.buf.resize(n, 0);
    }

    /// A rel32 field referring to `l`, ending the instruction.
    #[inline(always)]
    fn rel32(&mut self, l: Label) {
        self.fixups.push((self.offset(), l));
        self.buf.extend_from_slice(&[0; 4]);
    }

    /// The bytes with every label reference resolved, or the first label referred to
    /// but never bound.
    pub fn finalize(self) -> Result<Vec<u8>, Label> {
        self.finish().0
    }

    /// [`Asm::finalize`], also giving back the buffers of the labels and references.
    pub fn finish(mut self) -> (Result<Vec<u8>, Label>, Vec<u32>, Vec<Fixup>) {
        let mut res = Ok(());
        for &(at, l) in &self.fixups {
            let target = self.labels[l.0 as usize];
            if target == UNBOUND {
                res = Err(l);
                break;
            }
            let v = target.wrapping_sub(at + 4);
            self.buf[at as usize..at as usize + 4].copy_from_slice(&v.to_le_bytes());
        }
        (res.map(|()| self.buf), self.labels, self.fixups)
    }

    // ---- register, register ----

    /// `op reg, rm` (or `rm, reg`) for a one-byte opcode with register operands.
    #[inline(always)]
    fn rr(&mut self, w: bool, op: u8, reg: u8, rm: u8) {
        self.bytes(&[rex(w, reg, 0, rm), op, modrm(3, reg, rm)]);
    }

    /// The same for a `0F xx` opcode.
    #[inline(always)]
    fn rr_0f(&mut self, w: bool, op: u8, reg: u8, rm: u8) {
        self.bytes(&[rex(w, reg, 0, rm), 0x0f, op, modrm(3, reg, rm)]);
    }

    /// `mov d, s`
    pub fn mov_rr(&mut self, w: bool, d: u8, s: u8) {
        self.rr(w, 0x89, s, d);
    }

    /// `op d, s` (`cmp` in its `reg, r/m` form, the others `r/m, reg`).
    pub fn alu_rr(&mut self, op: Alu, w: bool, d: u8, s: u8) {
        if op == Alu::Cmp {
            self.rr(w, 0x3b, d, s);
        } else {
            self.rr(w, 8 * op as u8 + 1, s, d);
        }
    }

    /// `test r, r`
    pub fn test_rr(&mut self, w: bool, r: u8) {
        self.rr(w, 0x85, r, r);
    }

    /// `imul d, s`
    pub fn imul_rr(&mut self, w: bool, d: u8, s: u8) {
        self.rr_0f(w, 0xaf, d, s);
    }

    /// `movsxd d, s` (64 bits from 32)
    pub fn movsxd_rr(&mut self, d: u8, s: u8) {
        self.rr(true, 0x63, d, s);
    }

    /// `movzx d32, al`
    pub fn movzx_r_al(&mut self, d: u8) {
        self.rr_0f(false, 0xb6, d, 0);
    }

    // ---- register, immediate ----

    /// `op d, imm8` (sign-extended; `cmp` takes its 32-bit form).
    pub fn alu_ri8(&mut self, op: Alu, w: bool, d: u8, i: i8) {
        if op == Alu::Cmp {
            return self.alu_ri32(op, w, d, i as i32);
        }
        self.bytes(&[rex(w, 0, 0, d), 0x83, modrm(3, op as u8, d), i as u8]);
    }

    /// `op d, imm32`
    pub fn alu_ri32(&mut self, op: Alu, w: bool, d: u8, i: i32) {
        let i = i.to_le_bytes();
        self.bytes(&[
            rex(w, 0, 0, d),
            0x81,
            modrm(3, op as u8, d),
            i[0],
            i[1],
            i[2],
            i[3],
        ]);
    }

    /// `imul d, s, imm32`
    pub fn imul_rri(&mut self, w: bool, d: u8, s: u8, i: i32) {
        let i = i.to_le_bytes();
        self.bytes(&[
            rex(w, d, 0, s),
            0x69,
            modrm(3, d, s),
            i[0],
            i[1],
            i[2],
            i[3],
        ]);
    }

    /// `shl/shr/sar d, imm8`
    pub fn shift_ri(&mut self, op: Shift, w: bool, d: u8, amt: i8) {
        self.bytes(&[rex(w, 0, 0, d), 0xc1, modrm(3, op as u8, d), amt as u8]);
    }

    /// `shl/shr/sar d, cl`
    pub fn shift_rcl(&mut self, op: Shift, w: bool, d: u8) {
        self.bytes(&[rex(w, 0, 0, d), 0xd3, modrm(3, op as u8, d)]);
    }

    /// `not/neg/div/idiv r`
    pub fn unary_r(&mut self, op: Unary, w: bool, r: u8) {
        self.bytes(&[rex(w, 0, 0, r), 0xf7, modrm(3, op as u8, r)]);
    }

    /// `mov d32, imm32` (zero-extended)
    pub fn mov_r32_i32(&mut self, d: u8, i: i32) {
        let i = i.to_le_bytes();
        self.bytes(&[rex(false, 0, 0, d), 0xb8 + (d & 7), i[0], i[1], i[2], i[3]]);
    }

    /// `mov d64, imm32` (sign-extended)
    pub fn mov_r64_i32(&mut self, d: u8, i: i32) {
        let i = i.to_le_bytes();
        self.bytes(&[
            rex(true, 0, 0, d),
            0xc7,
            modrm(3, 0, d),
            i[0],
            i[1],
            i[2],
            i[3],
        ]);
    }

    /// `mov d64, imm64`
    pub fn mov_r64_i64(&mut self, d: u8, i: i64) {
        let i = i.to_le_bytes();
        self.bytes(&[
            rex(true, 0, 0, d),
            0xb8 + (d & 7),
            i[0],
            i[1],
            i[2],
            i[3],
            i[4],
            i[5],
            i[6],
            i[7],
        ]);
    }

    /// `push r`
    pub fn push(&mut self, r: u8) {
        self.bytes(&[rex(false, 0, 0, r), 0x50 + (r & 7)]);
    }

    /// `pop r`
    pub fn pop(&mut self, r: u8) {
        self.bytes(&[rex(false, 0, 0, r), 0x58 + (r & 7)]);
    }

    // ---- memory `[base + disp32]` ----

    /// `op reg, [base + disp]` (or `[..], reg`) for a one-byte opcode, with a REX prefix.
    #[inline(always)]
    fn rm(&mut self, w: bool, op: u8, reg: u8, base: u8, disp: i32) {
        let [a, b, c, d, e, f] = mem_tail(reg, base, disp);
        self.bytes(&[rex(w, reg, 0, base), op, a, b, c, d, e, f]);
    }

    /// The same for a `0F xx` opcode.
    #[inline(always)]
    fn rm_0f(&mut self, w: bool, op: u8, reg: u8, base: u8, disp: i32) {
        let [a, b, c, d, e, f] = mem_tail(reg, base, disp);
        self.bytes(&[rex(w, reg, 0, base), 0x0f, op, a, b, c, d, e, f]);
    }

    /// `mov d, [base + disp]` of width `wd`, zero-extending a byte into 32 bits.
    pub fn load(&mut self, wd: Width, d: u8, base: u8, disp: i32) {
        match wd {
            Width::B8 => self.rm_0f(false, 0xb6, d, base, disp),
            Width::B16 => {
                self.bytes(&[0x66]);
                self.rm(false, 0x8b, d, base, disp)
            }
            Width::B32 => self.rm(false, 0x8b, d, base, disp),
            Width::B64 => self.rm(true, 0x8b, d, base, disp),
        }
    }

    /// `mov al, [base + disp]`
    pub fn load_al(&mut self, base: u8, disp: i32) {
        self.rm(false, 0x8a, 0, base, disp);
    }

    /// `mov [base + disp], s` of width `wd`.
    pub fn store(&mut self, wd: Width, base: u8, disp: i32, s: u8) {
        match wd {
            Width::B8 => self.rm(false, 0x88, s, base, disp),
            Width::B16 => {
                self.bytes(&[0x66]);
                self.rm(false, 0x89, s, base, disp)
            }
            Width::B32 => self.rm(false, 0x89, s, base, disp),
            Width::B64 => self.rm(true, 0x89, s, base, disp),
        }
    }

    /// `mov [base + disp], imm` of width `wd` (a 64-bit store sign-extends `i`; 16 bits
    /// are not supported).
    pub fn store_imm(&mut self, wd: Width, base: u8, disp: i32, i: i32) {
        if wd == Width::B8 {
            let [a, b, c, d, e, f] = mem_tail(0, base, disp);
            self.bytes(&[rex(false, 0, 0, base), 0xc6, a, b, c, d, e, f, i as u8]);
        } else {
            let [a, b, c, d, e, f] = mem_tail(0, base, disp);
            let i = i.to_le_bytes();
            self.bytes(&[
                rex(wd == Width::B64, 0, 0, base),
                0xc7,
                a,
                b,
                c,
                d,
                e,
                f,
                i[0],
                i[1],
                i[2],
                i[3],
            ]);
        }
    }

    /// `lea d, [base + disp]`
    pub fn lea(&mut self, d: u8, base: u8, disp: i32) {
        self.rm(true, 0x8d, d, base, disp);
    }

    /// `op d, [base + disp]`
    pub fn alu_rm(&mut self, op: Alu, w: bool, d: u8, base: u8, disp: i32) {
        self.rm(w, 8 * op as u8 + 3, d, base, disp);
    }

    /// `imul d, [base + disp]`
    pub fn imul_rm(&mut self, w: bool, d: u8, base: u8, disp: i32) {
        self.rm_0f(w, 0xaf, d, base, disp);
    }

    /// `movsxd d, dword [base + disp]`
    pub fn movsxd_rm(&mut self, d: u8, base: u8, disp: i32) {
        self.rm(true, 0x63, d, base, disp);
    }

    /// `mov qword [rsp + disp], rax` (no register chosen at run time).
    pub fn store_rsp_rax(&mut self, disp: i32) {
        let [a, b, c, d, e, f] = mem_tail(0, RSP, disp);
        self.bytes(&[0x48, 0x89, a, b, c, d, e, f]);
    }

    /// `mov qword [rsp + disp], imm32` (sign-extended).
    pub fn store_rsp_imm(&mut self, disp: i32, i: i32) {
        let [a, b, c, d, e, f] = mem_tail(0, RSP, disp);
        let i = i.to_le_bytes();
        self.bytes(&[0x48, 0xc7, a, b, c, d, e, f, i[0], i[1], i[2], i[3]]);
    }

    /// `div/idiv [rsp + disp]` of 64 or 32 bits.
    pub fn unary_rsp(&mut self, op: Unary, w: bool, disp: i32) {
        let [a, b, c, d, e, f] = mem_tail(op as u8, RSP, disp);
        if w {
            self.bytes(&[0x48, 0xf7, a, b, c, d, e, f]);
        } else {
            self.bytes(&[0xf7, a, b, c, d, e, f]);
        }
    }

    /// `cmp byte [rsp + disp], 0`
    pub fn cmp_rsp_byte_zero(&mut self, disp: i32) {
        let [a, b, c, d, e, f] = mem_tail(7, RSP, disp);
        self.bytes(&[0x80, a, b, c, d, e, f, 0]);
    }

    // ---- memory `[base + index * scale]` ----

    /// `lea d, [base + index * scale]` (scale 1, 2, 4 or 8).
    pub fn lea_index(&mut self, d: u8, base: u8, index: u8, scale: u8) {
        let ss = scale.trailing_zeros() as u8;
        self.bytes(&[
            rex(true, d, index, base),
            0x8d,
            modrm(1, d, 4),
            modrm(ss, index, base),
            0,
        ]);
    }

    // ---- labels ----

    /// `lea d, [rip + l]`
    pub fn lea_label(&mut self, d: u8, l: Label) {
        self.bytes(&[rex(true, d, 0, 0), 0x8d, modrm(0, d, 5)]);
        self.rel32(l);
    }

    /// `jmp l`
    pub fn jmp(&mut self, l: Label) {
        self.bytes(&[0xe9]);
        self.rel32(l);
    }

    /// `j<cc> l`
    pub fn jcc(&mut self, cc: u8, l: Label) {
        self.bytes(&[0x0f, 0x80 | cc]);
        self.rel32(l);
    }

    /// `set<cc> al`
    pub fn setcc_al(&mut self, cc: u8) {
        self.bytes(&[0x0f, 0x90 | cc, 0xc0]);
    }
}

pub(crate) const CQO: &[u8] = &[0x48, 0x99];
pub(crate) const CDQ: &[u8] = &[0x99];
pub(crate) const XOR_EDX_EDX: &[u8] = &[0x31, 0xd2];
pub(crate) const TEST_EAX_EAX: &[u8] = &[0x85, 0xc0];
pub(crate) const IMUL_RDX_RAX: &[u8] = &[0x48, 0x0f, 0xaf, 0xd0];
pub(crate) const RET: &[u8] = &[0xc3];
pub(crate) const AND_RSP_M16: &[u8] = &[0x48, 0x83, 0xe4, 0xf0];
pub(crate) const SUB_RSP_8: &[u8] = &[0x48, 0x83, 0xec, 0x08];
/// `push rsi; push rdi; mov rdi, rax; mov rsi, rdx`
pub(crate) const MOVS_ENTER: &[u8] = &[0x56, 0x57, 0x48, 0x89, 0xc7, 0x48, 0x89, 0xd6];
/// `rep movsb; pop rdi; pop rsi`
pub(crate) const MOVS_LEAVE: &[u8] = &[0xf3, 0xa4, 0x5f, 0x5e];

impl Asm {
    /// `mov r32, imm32` for a fixed register below r8 (no REX prefix).
    pub fn mov_r32_fixed(&mut self, r: u8, i: i32) {
        let i = i.to_le_bytes();
        self.bytes(&[0xb8 + r, i[0], i[1], i[2], i[3]]);
    }
}

#[cfg(test)]
// dynasm's macro converts register numbers with `.into()`, even from `u8`.
#[allow(clippy::useless_conversion)]
mod tests {
    use super::*;
    use dynasmrt::x64::X64Relocation;
    use dynasmrt::{dynasm, DynasmApi, DynasmLabelApi, VecAssembler};

    type Dyn = VecAssembler<X64Relocation>;
    /// A condition's encoding and the same jump (or `setcc al`) written with dynasm.
    type DynJcc = (u8, fn(&mut Dyn, dynasmrt::DynamicLabel));
    type DynSetcc = (u8, fn(&mut Dyn));

    const I32S: [i32; 11] = [
        0,
        1,
        -1,
        127,
        128,
        -128,
        -129,
        0x1234_5678,
        i32::MAX,
        i32::MIN,
        -0x1234_5678,
    ];
    const I8S: [i8; 7] = [0, 1, -1, 31, 63, i8::MAX, i8::MIN];
    const I64S: [i64; 7] = [0, 1, -1, 1 << 31, -(1 << 31) - 1, i64::MAX, i64::MIN];

    /// Checks that `ours` and `theirs` write the same bytes.
    fn same(what: &str, ours: impl FnOnce(&mut Asm), theirs: impl FnOnce(&mut Dyn)) {
        let mut a = Asm::with_capacity(16, 0);
        ours(&mut a);
        let mut d = Dyn::new(0);
        theirs(&mut d);
        let (a, d) = (a.finalize().unwrap(), d.finalize().unwrap());
        assert_eq!(a, d, "{what}: ours {a:02x?}, dynasm {d:02x?}");
    }

    fn regs() -> impl Iterator<Item = u8> {
        0..16u8
    }

    macro_rules! alu_rr {
        ($op:ident, $alu:expr) => {
            for d in regs() {
                for s in regs() {
                    same(
                        concat!(stringify!($op), " q rr"),
                        |a| a.alu_rr($alu, true, d, s),
                        |o| dynasm!(o ; .arch x64 ; $op Rq(d), Rq(s)),
                    );
                    same(
                        concat!(stringify!($op), " d rr"),
                        |a| a.alu_rr($alu, false, d, s),
                        |o| dynasm!(o ; .arch x64 ; $op Rd(d), Rd(s)),
                    );
                }
                for i in I32S {
                    same(
                        concat!(stringify!($op), " q ri32"),
                        |a| a.alu_ri32($alu, true, d, i),
                        |o| dynasm!(o ; .arch x64 ; $op Rq(d), DWORD i),
                    );
                    same(
                        concat!(stringify!($op), " d ri32"),
                        |a| a.alu_ri32($alu, false, d, i),
                        |o| dynasm!(o ; .arch x64 ; $op Rd(d), DWORD i),
                    );
                    same(
                        concat!(stringify!($op), " q rm"),
                        |a| a.alu_rm($alu, true, d, RSP, i),
                        |o| dynasm!(o ; .arch x64 ; $op Rq(d), QWORD [rsp + i]),
                    );
                    same(
                        concat!(stringify!($op), " d rm"),
                        |a| a.alu_rm($alu, false, d, RSP, i),
                        |o| dynasm!(o ; .arch x64 ; $op Rd(d), DWORD [rsp + i]),
                    );
                }
                for i in I8S {
                    same(
                        concat!(stringify!($op), " q ri8"),
                        |a| a.alu_ri8($alu, true, d, i),
                        |o| dynasm!(o ; .arch x64 ; $op Rq(d), BYTE Into::<_>::into(i)),
                    );
                    same(
                        concat!(stringify!($op), " d ri8"),
                        |a| a.alu_ri8($alu, false, d, i),
                        |o| dynasm!(o ; .arch x64 ; $op Rd(d), BYTE Into::<_>::into(i)),
                    );
                }
            }
        };
    }

    #[test]
    #[rustfmt::skip]
    fn alu_matches_dynasm() {
        alu_rr!(add, Alu::Add);
        alu_rr!(or, Alu::Or);
        alu_rr!(and, Alu::And);
        alu_rr!(sub, Alu::Sub);
        alu_rr!(xor, Alu::Xor);
        alu_rr!(cmp, Alu::Cmp);
    }

    #[test]
    #[rustfmt::skip]
    fn register_forms_match_dynasm() {
        for d in regs() {
            for s in regs() {
                same("mov q", |a| a.mov_rr(true, d, s), |o| dynasm!(o ; .arch x64 ; mov Rq(d), Rq(s)));
                same("mov d", |a| a.mov_rr(false, d, s), |o| dynasm!(o ; .arch x64 ; mov Rd(d), Rd(s)));
                same("imul q", |a| a.imul_rr(true, d, s), |o| dynasm!(o ; .arch x64 ; imul Rq(d), Rq(s)));
                same("imul d", |a| a.imul_rr(false, d, s), |o| dynasm!(o ; .arch x64 ; imul Rd(d), Rd(s)));
                same("movsxd", |a| a.movsxd_rr(d, s), |o| dynasm!(o ; .arch x64 ; movsxd Rq(d), Rd(s)));
                for i in I32S {
                    same("imul q rri", |a| a.imul_rri(true, d, s, i), |o| dynasm!(o ; .arch x64 ; imul Rq(d), Rq(s), i));
                    same("imul d rri", |a| a.imul_rri(false, d, s, i), |o| dynasm!(o ; .arch x64 ; imul Rd(d), Rd(s), i));
                }
            }
            for i in I32S {
                same("imul rdx, r, i", |a| a.imul_rri(true, 2, d, i), |o| dynasm!(o ; .arch x64 ; imul rdx, Rq(d), i));
            }
            same("add rdx, r", |a| a.alu_rr(Alu::Add, true, 2, d), |o| dynasm!(o ; .arch x64 ; add rdx, Rq(d)));
            same("test q", |a| a.test_rr(true, d), |o| dynasm!(o ; .arch x64 ; test Rq(d), Rq(d)));
            same("test d", |a| a.test_rr(false, d), |o| dynasm!(o ; .arch x64 ; test Rd(d), Rd(d)));
            same("movzx al", |a| a.movzx_r_al(d), |o| dynasm!(o ; .arch x64 ; movzx Rd(d), al));
            same("xor d,d", |a| a.alu_rr(Alu::Xor, false, d, d), |o| dynasm!(o ; .arch x64 ; xor Rd(d), Rd(d)));
            same("xor d,1", |a| a.alu_ri8(Alu::Xor, false, d, 1), |o| dynasm!(o ; .arch x64 ; xor Rd(d), 1));
            same("and d,1", |a| a.alu_ri8(Alu::And, false, d, 1), |o| dynasm!(o ; .arch x64 ; and Rd(d), 1));
            same("not q", |a| a.unary_r(Unary::Not, true, d), |o| dynasm!(o ; .arch x64 ; not Rq(d)));
            same("not d", |a| a.unary_r(Unary::Not, false, d), |o| dynasm!(o ; .arch x64 ; not Rd(d)));
            same("neg q", |a| a.unary_r(Unary::Neg, true, d), |o| dynasm!(o ; .arch x64 ; neg Rq(d)));
            same("neg d", |a| a.unary_r(Unary::Neg, false, d), |o| dynasm!(o ; .arch x64 ; neg Rd(d)));
            same("div q", |a| a.unary_r(Unary::Div, true, d), |o| dynasm!(o ; .arch x64 ; div Rq(d)));
            same("div d", |a| a.unary_r(Unary::Div, false, d), |o| dynasm!(o ; .arch x64 ; div Rd(d)));
            same("idiv q", |a| a.unary_r(Unary::Idiv, true, d), |o| dynasm!(o ; .arch x64 ; idiv Rq(d)));
            same("idiv d", |a| a.unary_r(Unary::Idiv, false, d), |o| dynasm!(o ; .arch x64 ; idiv Rd(d)));
            same("shl q cl", |a| a.shift_rcl(Shift::Shl, true, d), |o| dynasm!(o ; .arch x64 ; shl Rq(d), cl));
            same("shl d cl", |a| a.shift_rcl(Shift::Shl, false, d), |o| dynasm!(o ; .arch x64 ; shl Rd(d), cl));
            same("sar q cl", |a| a.shift_rcl(Shift::Sar, true, d), |o| dynasm!(o ; .arch x64 ; sar Rq(d), cl));
            same("sar d cl", |a| a.shift_rcl(Shift::Sar, false, d), |o| dynasm!(o ; .arch x64 ; sar Rd(d), cl));
            same("shr q cl", |a| a.shift_rcl(Shift::Shr, true, d), |o| dynasm!(o ; .arch x64 ; shr Rq(d), cl));
            same("shr d cl", |a| a.shift_rcl(Shift::Shr, false, d), |o| dynasm!(o ; .arch x64 ; shr Rd(d), cl));
            for amt in I8S {
                same("shl q i", |a| a.shift_ri(Shift::Shl, true, d, amt), |o| dynasm!(o ; .arch x64 ; shl Rq(d), amt));
                same("shl d i", |a| a.shift_ri(Shift::Shl, false, d, amt), |o| dynasm!(o ; .arch x64 ; shl Rd(d), amt));
                same("sar q i", |a| a.shift_ri(Shift::Sar, true, d, amt), |o| dynasm!(o ; .arch x64 ; sar Rq(d), amt));
                same("sar d i", |a| a.shift_ri(Shift::Sar, false, d, amt), |o| dynasm!(o ; .arch x64 ; sar Rd(d), amt));
                same("shr q i", |a| a.shift_ri(Shift::Shr, true, d, amt), |o| dynasm!(o ; .arch x64 ; shr Rq(d), amt));
                same("shr d i", |a| a.shift_ri(Shift::Shr, false, d, amt), |o| dynasm!(o ; .arch x64 ; shr Rd(d), amt));
            }
            for i in I32S {
                same("mov d i32", |a| a.mov_r32_i32(d, i), |o| dynasm!(o ; .arch x64 ; mov Rd(d), i));
                same("mov q i32", |a| a.mov_r64_i32(d, i), |o| dynasm!(o ; .arch x64 ; mov Rq(d), i));
                same("and q i32", |a| a.alu_ri32(Alu::And, true, d, i), |o| dynasm!(o ; .arch x64 ; and Rq(d), i));
            }
            for i in I64S {
                same("mov q i64", |a| a.mov_r64_i64(d, i), |o| dynasm!(o ; .arch x64 ; mov Rq(d), QWORD i));
            }
            same("push", |a| a.push(d), |o| dynasm!(o ; .arch x64 ; push Rq(d)));
            same("pop", |a| a.pop(d), |o| dynasm!(o ; .arch x64 ; pop Rq(d)));
        }
    }

    #[test]
    #[rustfmt::skip]
    fn memory_forms_match_dynasm() {
        for b in regs() {
            for r in regs() {
                for i in I32S {
                    same("mov q load", |a| a.load(Width::B64, r, b, i), |o| dynasm!(o ; .arch x64 ; mov Rq(r), QWORD [Rq(b) + i]));
                    same("mov d load", |a| a.load(Width::B32, r, b, i), |o| dynasm!(o ; .arch x64 ; mov Rd(r), DWORD [Rq(b) + i]));
                    same("movzx load", |a| a.load(Width::B8, r, b, i), |o| dynasm!(o ; .arch x64 ; movzx Rd(r), BYTE [Rq(b) + i]));
                    same("mov q store", |a| a.store(Width::B64, b, i, r), |o| dynasm!(o ; .arch x64 ; mov QWORD [Rq(b) + i], Rq(r)));
                    same("mov d store", |a| a.store(Width::B32, b, i, r), |o| dynasm!(o ; .arch x64 ; mov DWORD [Rq(b) + i], Rd(r)));
                    same("mov b store", |a| a.store(Width::B8, b, i, r), |o| dynasm!(o ; .arch x64 ; mov BYTE [Rq(b) + i], Rb(r)));
                    same("lea", |a| a.lea(r, b, i), |o| dynasm!(o ; .arch x64 ; lea Rq(r), [Rq(b) + i]));
                    same("imul q rm", |a| a.imul_rm(true, r, RSP, i), |o| dynasm!(o ; .arch x64 ; imul Rq(r), QWORD [rsp + i]));
                    same("imul d rm", |a| a.imul_rm(false, r, RSP, i), |o| dynasm!(o ; .arch x64 ; imul Rd(r), DWORD [rsp + i]));
                    same("movsxd rm", |a| a.movsxd_rm(r, RSP, i), |o| dynasm!(o ; .arch x64 ; movsxd Rq(r), DWORD [rsp + i]));
                    same("load rsp", |a| a.load(Width::B64, r, RSP, i), |o| dynasm!(o ; .arch x64 ; mov Rq(r), QWORD [rsp + i]));
                    same("store rsp", |a| a.store(Width::B64, RSP, i, r), |o| dynasm!(o ; .arch x64 ; mov QWORD [rsp + i], Rq(r)));
                    same("lea rsp", |a| a.lea(r, RSP, i), |o| dynasm!(o ; .arch x64 ; lea Rq(r), [rsp + i]));
                }
                same("lea b+i", |a| a.lea_index(r, b, 2, 1), |o| dynasm!(o ; .arch x64 ; lea Rq(r), [Rq(b) + rdx]));
                for i in regs() {
                    same("lea *1", |a| a.lea_index(r, b, i, 1), |o| dynasm!(o ; .arch x64 ; lea Rq(r), [Rq(b) + Rq(i)]));
                    same("lea *2", |a| a.lea_index(r, b, i, 2), |o| dynasm!(o ; .arch x64 ; lea Rq(r), [Rq(b) + Rq(i) * 2]));
                    same("lea *4", |a| a.lea_index(r, b, i, 4), |o| dynasm!(o ; .arch x64 ; lea Rq(r), [Rq(b) + Rq(i) * 4]));
                    same("lea *8", |a| a.lea_index(r, b, i, 8), |o| dynasm!(o ; .arch x64 ; lea Rq(r), [Rq(b) + Rq(i) * 8]));
                }
            }
            for i in I32S {
                same("load rax", |a| a.load(Width::B64, 0, b, i), |o| dynasm!(o ; .arch x64 ; mov rax, [Rq(b) + i]));
                same("load eax", |a| a.load(Width::B32, 0, b, i), |o| dynasm!(o ; .arch x64 ; mov eax, [Rq(b) + i]));
                same("load ax", |a| a.load(Width::B16, 0, b, i), |o| dynasm!(o ; .arch x64 ; mov ax, [Rq(b) + i]));
                same("load al", |a| a.load_al(b, i), |o| dynasm!(o ; .arch x64 ; mov al, [Rq(b) + i]));
                same("store rax", |a| a.store(Width::B64, b, i, 0), |o| dynasm!(o ; .arch x64 ; mov [Rq(b) + i], rax));
                same("store eax", |a| a.store(Width::B32, b, i, 0), |o| dynasm!(o ; .arch x64 ; mov [Rq(b) + i], eax));
                same("store ax", |a| a.store(Width::B16, b, i, 0), |o| dynasm!(o ; .arch x64 ; mov [Rq(b) + i], ax));
                same("store al", |a| a.store(Width::B8, b, i, 0), |o| dynasm!(o ; .arch x64 ; mov [Rq(b) + i], al));
                for c in I32S {
                    same("store q imm", |a| a.store_imm(Width::B64, b, i, c), |o| dynasm!(o ; .arch x64 ; mov QWORD [Rq(b) + i], c));
                    same("store d imm", |a| a.store_imm(Width::B32, b, i, c), |o| dynasm!(o ; .arch x64 ; mov DWORD [Rq(b) + i], c));
                    let c8 = c as i8;
                    same("store b imm", |a| a.store_imm(Width::B8, b, i, c), |o| dynasm!(o ; .arch x64 ; mov BYTE [Rq(b) + i], c8));
                }
            }
        }
        for i in I32S {
            same("store rsp rax", |a| a.store_rsp_rax(i), |o| dynasm!(o ; .arch x64 ; mov QWORD [rsp + i], rax));
            for c in I32S {
                same("store rsp imm", |a| a.store_rsp_imm(i, c), |o| dynasm!(o ; .arch x64 ; mov QWORD [rsp + i], c));
            }
            same("idiv q m", |a| a.unary_rsp(Unary::Idiv, true, i), |o| dynasm!(o ; .arch x64 ; idiv QWORD [rsp + i]));
            same("idiv d m", |a| a.unary_rsp(Unary::Idiv, false, i), |o| dynasm!(o ; .arch x64 ; idiv DWORD [rsp + i]));
            same("div q m", |a| a.unary_rsp(Unary::Div, true, i), |o| dynasm!(o ; .arch x64 ; div QWORD [rsp + i]));
            same("div d m", |a| a.unary_rsp(Unary::Div, false, i), |o| dynasm!(o ; .arch x64 ; div DWORD [rsp + i]));
            same("cmp byte m 0", |a| a.cmp_rsp_byte_zero(i), |o| dynasm!(o ; .arch x64 ; cmp BYTE [rsp + i], 0));
        }
    }

    #[test]
    #[rustfmt::skip]
    fn label_forms_match_dynasm() {
        let conds: [DynJcc; 10] = [
            (cc::E, |o, l| dynasm!(o ; .arch x64 ; je =>l)),
            (cc::NE, |o, l| dynasm!(o ; .arch x64 ; jne =>l)),
            (cc::L, |o, l| dynasm!(o ; .arch x64 ; jl =>l)),
            (cc::LE, |o, l| dynasm!(o ; .arch x64 ; jle =>l)),
            (cc::G, |o, l| dynasm!(o ; .arch x64 ; jg =>l)),
            (cc::GE, |o, l| dynasm!(o ; .arch x64 ; jge =>l)),
            (cc::B, |o, l| dynasm!(o ; .arch x64 ; jb =>l)),
            (cc::BE, |o, l| dynasm!(o ; .arch x64 ; jbe =>l)),
            (cc::A, |o, l| dynasm!(o ; .arch x64 ; ja =>l)),
            (cc::AE, |o, l| dynasm!(o ; .arch x64 ; jae =>l)),
        ];
        let sets: [DynSetcc; 10] = [
            (cc::E, |o| dynasm!(o ; .arch x64 ; sete al)),
            (cc::NE, |o| dynasm!(o ; .arch x64 ; setne al)),
            (cc::L, |o| dynasm!(o ; .arch x64 ; setl al)),
            (cc::LE, |o| dynasm!(o ; .arch x64 ; setle al)),
            (cc::G, |o| dynasm!(o ; .arch x64 ; setg al)),
            (cc::GE, |o| dynasm!(o ; .arch x64 ; setge al)),
            (cc::B, |o| dynasm!(o ; .arch x64 ; setb al)),
            (cc::BE, |o| dynasm!(o ; .arch x64 ; setbe al)),
            (cc::A, |o| dynasm!(o ; .arch x64 ; seta al)),
            (cc::AE, |o| dynasm!(o ; .arch x64 ; setae al)),
        ];
        for (c, f) in sets {
            same("setcc", |a| a.setcc_al(c), f);
        }
        // Backward and forward references, with padding between.
        for pad in [0usize, 1, 100, 300] {
            for (c, f) in conds {
                same(
                    "jcc",
                    |a| {
                        let (back, fwd) = (a.new_label(), a.new_label());
                        a.bind(back);
                        a.bytes(&vec![0x90; pad]);
                        a.jcc(c, back);
                        a.jcc(c, fwd);
                        a.jmp(fwd);
                        a.jmp(back);
                        a.bytes(&vec![0x90; pad]);
                        a.bind(fwd);
                    },
                    |o| {
                        let (back, fwd) = (o.new_dynamic_label(), o.new_dynamic_label());
                        dynasm!(o ; .arch x64 ; =>back);
                        o.extend(vec![0x90; pad]);
                        f(o, back);
                        f(o, fwd);
                        dynasm!(o ; .arch x64 ; jmp =>fwd ; jmp =>back);
                        o.extend(vec![0x90; pad]);
                        dynasm!(o ; .arch x64 ; =>fwd);
                    },
                );
            }
            for r in regs() {
                same(
                    "lea label",
                    |a| {
                        let l = a.new_label();
                        a.lea_label(r, l);
                        a.bytes(&vec![0x90; pad]);
                        a.bind(l);
                    },
                    |o| {
                        let l = o.new_dynamic_label();
                        dynasm!(o ; .arch x64 ; lea Rq(r), [=>l]);
                        o.extend(vec![0x90; pad]);
                        dynasm!(o ; .arch x64 ; =>l);
                    },
                );
            }
        }
        let mut a = Asm::with_capacity(16, 0);
        let l = a.new_label();
        a.jmp(l);
        assert_eq!(a.finalize(), Err(l));
    }

    /// The fixed sequences the emitter writes as bytes.
    #[test]
    #[rustfmt::skip]
    fn fixed_sequences_match_dynasm() {
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; cqo);
        assert_eq!(o.finalize().unwrap(), CQO);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; cdq);
        assert_eq!(o.finalize().unwrap(), CDQ);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; xor edx, edx);
        assert_eq!(o.finalize().unwrap(), XOR_EDX_EDX);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; test eax, eax);
        assert_eq!(o.finalize().unwrap(), TEST_EAX_EAX);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; imul rdx, rax);
        assert_eq!(o.finalize().unwrap(), IMUL_RDX_RAX);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; ret);
        assert_eq!(o.finalize().unwrap(), RET);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; and rsp, -16);
        assert_eq!(o.finalize().unwrap(), AND_RSP_M16);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; sub rsp, 8);
        assert_eq!(o.finalize().unwrap(), SUB_RSP_8);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; push rsi ; push rdi ; mov rdi, rax ; mov rsi, rdx);
        assert_eq!(o.finalize().unwrap(), MOVS_ENTER);
        let mut o = Dyn::new(0);
        dynasm!(o ; .arch x64 ; rep movsb ; pop rdi ; pop rsi);
        assert_eq!(o.finalize().unwrap(), MOVS_LEAVE);
        for i in I32S {
            let mut o = Dyn::new(0);
            dynasm!(o ; .arch x64 ; sub rsp, i ; add rsp, i ; mov ecx, i ; mov edx, i);
            let mut a = Asm::with_capacity(16, 0);
            a.alu_ri32(Alu::Sub, true, RSP, i);
            a.alu_ri32(Alu::Add, true, RSP, i);
            a.mov_r32_fixed(1, i);
            a.mov_r32_fixed(2, i);
            assert_eq!(a.finalize().unwrap(), o.finalize().unwrap());
        }
    }
}

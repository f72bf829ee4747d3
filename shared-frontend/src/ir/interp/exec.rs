//! The execution loop over translated code: an explicit frame stack (Rill calls never
//! recurse on the host stack), registers of all frames in one array, and one linear byte
//! memory holding the null guard, the read-only data and the stack of frames' slots.

use super::code::{Code, Op, DATA_BASE, NONE};
use super::scalar;
use super::{ExitStatus, InterpLimits, InterpStats, MAX_STACK_BYTES};
use crate::ir::PanicKind;
use crate::ir::ScalarTy::{I32, I64};

/// The caller's state, saved by a call.
struct Frame {
    ret_pc: u32,
    func: u32,
    /// The caller's register receiving the result (or [`NONE`]).
    dst: u32,
    rb: usize,
    fp: u64,
    top: u64,
}

fn align_up(x: u64, a: u64) -> u64 {
    x.div_ceil(a) * a
}

/// Appends `v` in decimal.
fn write_u64(out: &mut Vec<u8>, mut v: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    out.extend_from_slice(&buf[i..]);
}

fn write_i64(out: &mut Vec<u8>, v: i64) {
    if v < 0 {
        out.push(b'-');
    }
    write_u64(out, v.unsigned_abs());
}

#[inline(never)]
#[cold]
fn memory_error(code: &Code, func: u32, what: &str, addr: u64, size: u64) -> ExitStatus {
    ExitStatus::InternalError(format!(
        "{}: {what} of {size} bytes at {addr:#x}, outside live memory",
        code.funcs[func as usize].name
    ))
}

#[inline(never)]
#[cold]
fn panic_status(code: &Code, panic: u32, regs: &[u64], rb: usize) -> ExitStatus {
    let Some(site) = code.panics.get(panic as usize) else {
        return ExitStatus::InternalError("bad panic site".to_string());
    };
    match site.kind {
        PanicKind::IndexOutOfBounds { len, .. } => {
            let v = regs.get(rb + site.index as usize).copied().unwrap_or(0);
            let index = if site.index_signed {
                (v as i64).to_string()
            } else {
                v.to_string()
            };
            ExitStatus::Panicked(format!(
                "index out of bounds: the len is {len} but the index is {index}"
            ))
        }
        kind => ExitStatus::Panicked(kind.message().to_string()),
    }
}

#[inline(never)]
#[cold]
fn trap_status(code: &Code, msg: u32) -> ExitStatus {
    ExitStatus::InternalError(
        code.traps
            .get(msg as usize)
            .cloned()
            .unwrap_or_else(|| "trap".to_string()),
    )
}

/// Everything the loop of [`execute`] works on besides the program counter and the fuel:
/// memory, the registers of all frames, the saved callers, and where the current frame
/// lives.
struct Machine<'c> {
    code: &'c Code,
    /// The null guard, the read-only data from [`DATA_BASE`], and from `stack_base` the
    /// frames' slots, up to `top`.
    mem: Vec<u8>,
    /// The registers of all frames; the current frame's start at `rb`.
    regs: Vec<u64>,
    frames: Vec<Frame>,
    stack_base: u64,
    stack_limit: u64,
    max_frames: usize,
    /// The most frames live at once.
    max_depth: usize,
    /// The current function.
    cur: u32,
    rb: usize,
    fp: u64,
    top: u64,
}

impl<'c> Machine<'c> {
    /// Memory with the data in place and `main`'s frame, and `main`'s first pc.
    fn new(code: &'c Code, limits: &InterpLimits) -> Result<(Machine<'c>, usize), ExitStatus> {
        let data_end = DATA_BASE + code.data.len() as u64;
        let stack_base = align_up(data_end, 4096);
        let stack_limit = stack_base + MAX_STACK_BYTES;
        let mut mem = vec![0u8; stack_base as usize];
        mem[DATA_BASE as usize..data_end as usize].copy_from_slice(&code.data);
        let main = &code.funcs[code.main as usize];
        let fp = align_up(stack_base, main.frame_align);
        let top = fp + main.frame_size;
        if top > stack_limit || main.nregs as u64 * 8 > MAX_STACK_BYTES {
            return Err(ExitStatus::StackOverflow);
        }
        mem.resize(top as usize, 0);
        let m = Machine {
            code,
            mem,
            regs: vec![0; main.nregs as usize],
            frames: Vec::new(),
            stack_base,
            stack_limit,
            max_frames: limits.max_frames.max(1),
            max_depth: 1,
            cur: code.main,
            rb: 0,
            fp,
            top,
        };
        Ok((m, main.entry_pc as usize))
    }

    /// Calls `func` with the arguments `args` indexes, its result going to register
    /// `dst` (or [`NONE`]); `ret_pc` is where the caller resumes. Gives the callee's
    /// first pc.
    #[inline(always)]
    fn call(&mut self, ret_pc: usize, dst: u32, func: u32, args: u32) -> Result<usize, ExitStatus> {
        let code = self.code;
        let caller = &code.funcs[self.cur as usize];
        let callee = &code.funcs[func as usize];
        if self.frames.len() + 1 >= self.max_frames {
            return Err(ExitStatus::StackOverflow);
        }
        let new_rb = self.rb + caller.nregs as usize;
        let new_regs_end = new_rb + callee.nregs as usize;
        let new_fp = align_up(self.top, callee.frame_align);
        let new_top = new_fp + callee.frame_size;
        if new_top > self.stack_limit
            || (new_top - self.stack_base) + 8 * new_regs_end as u64 > MAX_STACK_BYTES
        {
            return Err(ExitStatus::StackOverflow);
        }
        let regs = &mut self.regs;
        if new_regs_end > regs.len() {
            let want = new_regs_end.max(regs.len() * 2);
            regs.resize(want, 0);
        }
        regs[new_rb..new_regs_end].fill(0);
        let n = callee.nparams as usize;
        let params = &code.params[callee.params as usize..callee.params as usize + n];
        let args = &code.call_args[args as usize..args as usize + n];
        for (&p, &a) in params.iter().zip(args) {
            regs[new_rb + p as usize] = regs[self.rb + a as usize];
        }
        if new_top as usize > self.mem.len() {
            let want = (new_top as usize)
                .max(self.mem.len() * 2)
                .min(self.stack_limit as usize);
            self.mem.resize(want, 0);
        }
        self.frames.push(Frame {
            ret_pc: ret_pc as u32,
            func: self.cur,
            dst,
            rb: self.rb,
            fp: self.fp,
            top: self.top,
        });
        self.max_depth = self.max_depth.max(self.frames.len() + 1);
        self.cur = func;
        self.rb = new_rb;
        self.fp = new_fp;
        self.top = new_top;
        Ok(callee.entry_pc as usize)
    }

    /// Returns register `src` (or nothing, for [`NONE`]) to the caller: the pc where the
    /// caller resumes, or `None` when `main` returns.
    #[inline(always)]
    fn ret(&mut self, src: u32) -> Option<usize> {
        let v = if src == NONE {
            0
        } else {
            self.regs[self.rb + src as usize]
        };
        let f = self.frames.pop()?;
        self.cur = f.func;
        self.rb = f.rb;
        self.fp = f.fp;
        self.top = f.top;
        if f.dst != NONE {
            self.regs[f.rb + f.dst as usize] = v;
        }
        Some(f.ret_pc as usize)
    }

    /// Copies `size` bytes from the address in register `src` to the one in `dst`: from
    /// data or stack to stack.
    #[inline(always)]
    fn mem_copy(&mut self, dst: u32, src: u32, size: u32) -> Result<(), ExitStatus> {
        let size = size as u64;
        if size == 0 {
            return Ok(());
        }
        let (d, s) = (
            self.regs[self.rb + dst as usize],
            self.regs[self.rb + src as usize],
        );
        if d < self.stack_base || d > self.top.saturating_sub(size) {
            return Err(memory_error(self.code, self.cur, "copy into", d, size));
        }
        if s < DATA_BASE || s > self.top.saturating_sub(size) {
            return Err(memory_error(self.code, self.cur, "copy from", s, size));
        }
        let (d, s) = (d as usize, s as usize);
        self.mem.copy_within(s..s + size as usize, d);
        Ok(())
    }
}

pub(super) fn execute(
    code: &Code,
    limits: &InterpLimits,
    out: &mut Vec<u8>,
    stats: &mut InterpStats,
) -> ExitStatus {
    let (mut m, mut pc) = match Machine::new(code, limits) {
        Ok(start) => start,
        Err(status) => return status,
    };
    let ops = &code.ops[..];
    let fuel_start = limits.fuel.unwrap_or(u64::MAX);
    let mut fuel = fuel_start;

    macro_rules! charge {
        ($pc:expr) => {{
            let c = code.entry_cost[$pc] as u64;
            if fuel < c {
                break ExitStatus::OutOfFuel;
            }
            fuel -= c;
        }};
    }
    macro_rules! r {
        ($x:expr) => {
            m.regs[m.rb + $x as usize]
        };
    }
    macro_rules! bin {
        ($dst:ident, $a:ident, $b:ident, |$x:ident, $y:ident| $e:expr) => {{
            let $x = r!($a);
            let $y = r!($b);
            r!($dst) = $e;
        }};
    }
    macro_rules! div {
        ($dst:ident, $a:ident, $b:ident, $f:expr) => {{
            match $f(r!($a), r!($b)) {
                Some(v) => r!($dst) = v,
                None => {
                    break ExitStatus::InternalError(format!(
                        "{}: division with a zero divisor or overflow reached (unchecked)",
                        code.funcs[m.cur as usize].name
                    ))
                }
            }
        }};
    }
    macro_rules! addr {
        ($what:expr, $addr:ident, $off:ident, $size:expr, $lo:expr) => {{
            let a = r!($addr).wrapping_add($off as u64);
            if a < $lo || a > m.top - $size {
                break memory_error(code, m.cur, $what, a, $size);
            }
            a as usize
        }};
    }
    macro_rules! or_break {
        ($e:expr) => {
            match $e {
                Ok(v) => v,
                Err(status) => break status,
            }
        };
    }

    if (code.entry_cost[pc] as u64) > fuel {
        return ExitStatus::OutOfFuel;
    }
    fuel -= code.entry_cost[pc] as u64;
    let status = loop {
        let op = ops[pc];
        pc += 1;
        match op {
            Op::Const { dst, val } => r!(dst) = val,
            Op::Copy { dst, src } => r!(dst) = r!(src),
            Op::Add32 { dst, a, b } => bin!(dst, a, b, |x, y| (x as i32).wrapping_add(y as i32)
                as i64 as u64),
            Op::Add64 { dst, a, b } => bin!(dst, a, b, |x, y| x.wrapping_add(y)),
            Op::Sub32 { dst, a, b } => bin!(dst, a, b, |x, y| (x as i32).wrapping_sub(y as i32)
                as i64 as u64),
            Op::Sub64 { dst, a, b } => bin!(dst, a, b, |x, y| x.wrapping_sub(y)),
            Op::Mul32 { dst, a, b } => bin!(dst, a, b, |x, y| (x as i32).wrapping_mul(y as i32)
                as i64 as u64),
            Op::Mul64 { dst, a, b } => bin!(dst, a, b, |x, y| x.wrapping_mul(y)),
            Op::DivS32 { dst, a, b } => div!(dst, a, b, |x, y| scalar::div_s(I32, x, y)),
            Op::DivS64 { dst, a, b } => div!(dst, a, b, |x, y| scalar::div_s(I64, x, y)),
            Op::DivU64 { dst, a, b } => div!(dst, a, b, |x: u64, y| x.checked_div(y)),
            Op::RemS32 { dst, a, b } => div!(dst, a, b, |x, y| scalar::rem_s(I32, x, y)),
            Op::RemS64 { dst, a, b } => div!(dst, a, b, |x, y| scalar::rem_s(I64, x, y)),
            Op::RemU64 { dst, a, b } => div!(dst, a, b, |x: u64, y| x.checked_rem(y)),
            Op::And { dst, a, b } => bin!(dst, a, b, |x, y| x & y),
            Op::Or { dst, a, b } => bin!(dst, a, b, |x, y| x | y),
            Op::Xor { dst, a, b } => bin!(dst, a, b, |x, y| x ^ y),
            Op::Shl32 { dst, a, b } => bin!(dst, a, b, |x, y| scalar::shl32(x, y)),
            Op::Shl64 { dst, a, b } => bin!(dst, a, b, |x, y| scalar::shl64(x, y)),
            Op::ShrS32 { dst, a, b } => bin!(dst, a, b, |x, y| scalar::shr_s32(x, y)),
            Op::ShrS64 { dst, a, b } => bin!(dst, a, b, |x, y| scalar::shr_s64(x, y)),
            Op::ShrU64 { dst, a, b } => bin!(dst, a, b, |x, y| scalar::shr_u64(x, y)),
            Op::Eq { dst, a, b } => bin!(dst, a, b, |x, y| (x == y) as u64),
            Op::Ne { dst, a, b } => bin!(dst, a, b, |x, y| (x != y) as u64),
            Op::LtS { dst, a, b } => bin!(dst, a, b, |x, y| ((x as i64) < (y as i64)) as u64),
            Op::LeS { dst, a, b } => bin!(dst, a, b, |x, y| ((x as i64) <= (y as i64)) as u64),
            Op::LtU { dst, a, b } => bin!(dst, a, b, |x, y| (x < y) as u64),
            Op::LeU { dst, a, b } => bin!(dst, a, b, |x, y| (x <= y) as u64),
            Op::Neg32 { dst, src } => r!(dst) = (r!(src) as i32).wrapping_neg() as i64 as u64,
            Op::Neg64 { dst, src } => r!(dst) = r!(src).wrapping_neg(),
            Op::Not { dst, src } => r!(dst) = !r!(src),
            Op::NotBool { dst, src } => r!(dst) = r!(src) ^ 1,
            Op::ToI32 { dst, src } => r!(dst) = r!(src) as i32 as i64 as u64,
            Op::ToBool { dst, src } => r!(dst) = r!(src) & 1,
            Op::SlotAddr { dst, off } => r!(dst) = m.fp + off as u64,
            Op::Load8 { dst, addr, off } => {
                let a = addr!("load", addr, off, 1, DATA_BASE);
                r!(dst) = (m.mem[a] & 1) as u64;
            }
            Op::Load32 { dst, addr, off } => {
                let a = addr!("load", addr, off, 4, DATA_BASE);
                let b = [m.mem[a], m.mem[a + 1], m.mem[a + 2], m.mem[a + 3]];
                r!(dst) = i32::from_le_bytes(b) as i64 as u64;
            }
            Op::Load64 { dst, addr, off } => {
                let a = addr!("load", addr, off, 8, DATA_BASE);
                let mut b = [0u8; 8];
                b.copy_from_slice(&m.mem[a..a + 8]);
                r!(dst) = u64::from_le_bytes(b);
            }
            Op::Store8 { addr, off, src } => {
                let a = addr!("store", addr, off, 1, m.stack_base);
                m.mem[a] = r!(src) as u8;
            }
            Op::Store32 { addr, off, src } => {
                let a = addr!("store", addr, off, 4, m.stack_base);
                m.mem[a..a + 4].copy_from_slice(&(r!(src) as u32).to_le_bytes());
            }
            Op::Store64 { addr, off, src } => {
                let a = addr!("store", addr, off, 8, m.stack_base);
                m.mem[a..a + 8].copy_from_slice(&r!(src).to_le_bytes());
            }
            Op::ElemAddr { dst, base, index } => {
                let Op::Scale(scale) = ops[pc] else {
                    break ExitStatus::InternalError("ElemAddr without scale".to_string());
                };
                pc += 1;
                r!(dst) = r!(base).wrapping_add(r!(index).wrapping_mul(scale as u64));
            }
            Op::Scale(_) => break ExitStatus::InternalError("stray Scale".to_string()),
            Op::MemCopy { dst, src, size } => or_break!(m.mem_copy(dst, src, size)),
            Op::Call { dst, func, args } => {
                pc = or_break!(m.call(pc, dst, func, args));
                charge!(pc);
            }
            Op::PrintStr { start, len } => {
                let s = start as usize;
                out.extend_from_slice(&m.mem[s..s + len as usize]);
            }
            Op::PrintI { src } => write_i64(out, r!(src) as i64),
            Op::PrintU { src } => write_u64(out, r!(src)),
            Op::PrintBool { src } => {
                out.extend_from_slice(if r!(src) != 0 { b"true" } else { b"false" })
            }
            Op::Jump { target } => {
                pc = target as usize;
                charge!(pc);
            }
            Op::Branch {
                cond,
                then_pc,
                else_pc,
            } => {
                pc = if r!(cond) != 0 { then_pc } else { else_pc } as usize;
                charge!(pc);
            }
            Op::Return { src } => match m.ret(src) {
                Some(ret_pc) => pc = ret_pc,
                None => break ExitStatus::Finished,
            },
            Op::Panic { panic } => break panic_status(code, panic, &m.regs, m.rb),
            Op::Trap { msg } => break trap_status(code, msg),
        }
    };
    stats.instructions = fuel_start - fuel;
    stats.max_depth = m.max_depth;
    status
}

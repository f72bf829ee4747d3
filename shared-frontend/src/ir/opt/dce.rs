//! Dead code elimination: removes pure instructions whose result is never read, using a
//! backward liveness analysis over the registers that live across blocks (bitsets per
//! block) and a backward scan within each block. Calls, prints, stores and copies to
//! memory always stay.

use super::visit::{def_of, for_each_use, is_pure, successors, term_use, Scratch, NONE};
use super::{Changes, OptStats};
use crate::ir::IrFunction;

/// Above this many (block, global register) bits, every global register is taken as live
/// at every block end (the analysis stays block-local).
const MAX_BITS: usize = 1 << 26;

struct BitSet {
    words: Vec<u64>,
    per_block: usize,
}

impl BitSet {
    /// A zeroed set in `words`'s allocation.
    fn new(blocks: usize, bits: usize, mut words: Vec<u64>) -> BitSet {
        let per_block = bits.div_ceil(64);
        words.clear();
        words.resize(blocks * per_block, 0);
        BitSet { words, per_block }
    }
    fn row(&self, b: usize) -> &[u64] {
        &self.words[b * self.per_block..(b + 1) * self.per_block]
    }
    fn row_mut(&mut self, b: usize) -> &mut [u64] {
        &mut self.words[b * self.per_block..(b + 1) * self.per_block]
    }
}

fn get(row: &[u64], i: usize) -> bool {
    row[i / 64] >> (i % 64) & 1 != 0
}
fn set(row: &mut [u64], i: usize) {
    row[i / 64] |= 1 << (i % 64);
}

pub fn eliminate_dead_code(f: &mut IrFunction, stats: &mut OptStats) {
    if super::well_formed_registers(f) {
        eliminate_dead_code_unchecked(f, stats, &mut Scratch::default());
    }
}

/// [`eliminate_dead_code`] on a function known to be well-formed; what it changed in `f`
/// (only instructions go).
pub(super) fn eliminate_dead_code_unchecked(
    f: &mut IrFunction,
    stats: &mut OptStats,
    sc: &mut Scratch,
) -> Changes {
    let before = stats.dead_insts;
    // Removing a read of a register live across blocks can kill a write in another
    // block: repeat while that happens.
    while dce_round(f, stats, sc) {}
    let any = stats.dead_insts != before;
    Changes {
        any,
        removed_insts: any,
        ..Changes::default()
    }
}

/// One backward pass; whether it removed a read of a global register.
fn dce_round(f: &mut IrFunction, stats: &mut OptStats, sc: &mut Scratch) -> bool {
    let classes = sc.take_classes(f);
    let nb = f.blocks.len();
    let g = classes.globals.len();
    let precise = nb.saturating_mul(g) <= MAX_BITS;
    let [w0, w1, w2, w3] = &mut sc.words;

    // live_out per block, over global registers.
    let mut live_out = BitSet::new(if precise { nb } else { 0 }, g, std::mem::take(w0));
    let (mut gen, mut kill, mut live_in) = (
        BitSet::new(0, 0, std::mem::take(w1)),
        BitSet::new(0, 0, std::mem::take(w2)),
        BitSet::new(0, 0, std::mem::take(w3)),
    );
    if precise {
        // gen (read before written in the block) and kill (written) per block.
        gen = BitSet::new(nb, g, gen.words);
        kill = BitSet::new(nb, g, kill.words);
        for (bi, b) in f.blocks.iter().enumerate() {
            let (gen_row, kill_row) = (gen.row_mut(bi), kill.row_mut(bi));
            let read = |r: u32, gen_row: &mut [u64], kill_row: &[u64]| {
                let gi = classes.global_index[r as usize];
                if gi != NONE && !get(kill_row, gi as usize) {
                    set(gen_row, gi as usize);
                }
            };
            for inst in &b.insts {
                for_each_use(inst, |r| read(r.0, gen_row, kill_row));
                if let Some(d) = def_of(inst) {
                    let gi = classes.global_index[d.0 as usize];
                    if gi != NONE {
                        set(kill_row, gi as usize);
                    }
                }
            }
            if let Some(r) = term_use(&b.term) {
                read(r.0, gen_row, kill_row);
            }
        }
        // live_in = gen | (live_out & !kill); iterate in postorder until stable.
        sc.compute_rpo(f);
        let rpo = &sc.rpo;
        live_in = BitSet::new(nb, g, live_in.words);
        let words = live_out.per_block;
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().rev() {
                let b = b as usize;
                let [s0, s1] = successors(&f.blocks[b].term)
                    .map(|s| s.map(|s| s.0 as usize).filter(|&s| s < nb));
                for i in 0..words {
                    let mut out = 0u64;
                    if let Some(s) = s0 {
                        out |= live_in.words[s * words + i];
                    }
                    if let Some(s) = s1 {
                        out |= live_in.words[s * words + i];
                    }
                    let at = b * words + i;
                    live_out.words[at] = out;
                    let v = gen.words[at] | (out & !kill.words[at]);
                    if v != live_in.words[at] {
                        live_in.words[at] = v;
                        changed = true;
                    }
                }
            }
        }
    }

    // Backward scan of each block with a scratch liveness per register (stamped).
    let live_stamp = &mut sc.u32s[0];
    live_stamp.clear();
    live_stamp.resize(f.vregs.len(), 0);
    let keep = &mut sc.visited;
    let mut removed_global_read = false;
    let mut removed_any = false;
    for bi in 0..nb {
        let st = bi as u32 + 1;
        if precise {
            for (wi, &w) in live_out.row(bi).iter().enumerate() {
                let mut w = w;
                while w != 0 {
                    let gi = wi * 64 + w.trailing_zeros() as usize;
                    w &= w - 1;
                    live_stamp[classes.globals[gi].0 as usize] = st;
                }
            }
        } else {
            for r in &classes.globals {
                live_stamp[r.0 as usize] = st;
            }
        }
        let b = &mut f.blocks[bi];
        if let Some(r) = term_use(&b.term) {
            live_stamp[r.0 as usize] = st;
        }
        keep.clear();
        keep.resize(b.insts.len(), true);
        for (i, inst) in b.insts.iter().enumerate().rev() {
            let def = def_of(inst);
            if let Some(d) = def {
                if is_pure(inst) && live_stamp[d.0 as usize] != st {
                    keep[i] = false;
                    // A write the removed read saw is in another block only if the
                    // register is read before written in this one (in `gen`).
                    for_each_use(inst, |r| {
                        let gi = classes.global_index[r.0 as usize];
                        removed_global_read |=
                            gi != NONE && (!precise || get(gen.row(bi), gi as usize));
                    });
                    continue;
                }
                live_stamp[d.0 as usize] = 0;
            }
            for_each_use(inst, |r| live_stamp[r.0 as usize] = st);
        }
        let removed = keep.iter().filter(|k| !**k).count();
        if removed > 0 {
            removed_any = true;
            stats.dead_insts += removed as u32;
            let mut it = keep.iter();
            b.insts.retain(|_| *it.next().unwrap_or(&true));
        }
    }
    sc.put_classes(classes);
    if removed_any {
        // Only instructions went (terminators are untouched).
        sc.insts_changed();
    }
    sc.words = [live_out.words, gen.words, kill.words, live_in.words];
    removed_global_read
}

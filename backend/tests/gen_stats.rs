//! How the generated programs end, and that they exercise spills (a check on the
//! generator itself: the property test is only as good as what it generates).

mod common;

use shared_frontend::ir::interp::ExitStatus;

#[test]
fn generated_programs_end_in_every_way_and_spill() {
    let (mut finished, mut panicked, mut spilling) = (0, 0, 0);
    for seed in 0..300u64 {
        let p = common::gen::random_program(seed);
        let o = common::check_same(&p);
        match o.status {
            ExitStatus::Finished => finished += 1,
            ExitStatus::Panicked(_) => panicked += 1,
            s => panic!("seed {seed}: {s:?}"),
        }
        if p.functions
            .iter()
            .any(|f| backend::disassemble(&f.name, &backend::codegen(f)).contains("mov [rsp+"))
        {
            spilling += 1;
        }
    }
    eprintln!("finished {finished}, panicked {panicked}, spilling {spilling}");
    assert!(finished > 50 && panicked > 10 && spilling > 20);
}

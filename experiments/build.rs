//! Links `rill` as a position-dependent executable. The code is compiled position
//! independent as usual; linking it at a fixed address lets the linker resolve the
//! ~11k relative relocations (vtables, tables of string slices) that the dynamic loader
//! would otherwise apply at every start, and keeps the pages holding them clean. A
//! rebuild of a small program is a few milliseconds, so the start-up is part of what
//! the experiments measure.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bin=rill=-no-pie");
    }
}

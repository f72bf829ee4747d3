//! The x86-64 backend: IR to machine code per function, the linker, the runtime and
//! disassembly. It reads the IR of `shared-frontend` and nothing else of it.

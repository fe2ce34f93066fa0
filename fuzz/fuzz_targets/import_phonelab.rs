//! Fuzz target: see `pocketbench::fuzzing::import_phonelab`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::import_phonelab(data));

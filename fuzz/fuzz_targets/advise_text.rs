//! Fuzz target: see `pocketbench::fuzzing::advise_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::advise_text(data));

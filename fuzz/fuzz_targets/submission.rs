//! Fuzz target: see `pocketbench::fuzzing::submission`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::submission(data));

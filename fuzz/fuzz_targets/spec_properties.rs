//! Fuzz target: see `pocketbench::fuzzing::spec_properties`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::spec_properties(data));

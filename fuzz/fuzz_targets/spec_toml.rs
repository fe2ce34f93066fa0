//! Fuzz target: see `pocketbench::fuzzing::spec_toml`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::spec_toml(data));

//! Fuzz target: see `pocketbench::fuzzing::device_text`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::device_text(data));

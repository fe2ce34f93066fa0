//! Fuzz target: see `pocketbench::fuzzing::flash_trace`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::flash_trace(data));

//! Fuzz target: see `pocketbench::fuzzing::trace_upload`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::trace_upload(data));

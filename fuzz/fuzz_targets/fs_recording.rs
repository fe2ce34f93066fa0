//! Fuzz target: see `pocketbench::fuzzing::fs_recording`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::fs_recording(data));

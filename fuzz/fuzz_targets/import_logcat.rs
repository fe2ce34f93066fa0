//! Fuzz target: see `pocketbench::fuzzing::import_logcat`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::import_logcat(data));

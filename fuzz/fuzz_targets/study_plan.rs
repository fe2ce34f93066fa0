//! Fuzz target: see `pocketbench::fuzzing::study_plan`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::study_plan(data));

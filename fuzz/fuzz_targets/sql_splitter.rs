//! Fuzz target: see `pocketbench::fuzzing::sql_splitter`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::sql_splitter(data));

//! Fuzz target: see `pocketbench::fuzzing::login_form`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::login_form(data));

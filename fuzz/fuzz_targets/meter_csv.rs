//! Fuzz target: see `pocketbench::fuzzing::meter_csv`.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| pocketbench::fuzzing::meter_csv(data));

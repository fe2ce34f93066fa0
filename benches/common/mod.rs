//! What the benches share: their positional command-line numbers and the median of rounds.

#![allow(dead_code)]

use std::str::FromStr;

/// The command-line arguments after the program name that parse as numbers, in order (Cargo's
/// own `--bench` flag is skipped because it does not parse).
pub fn numbers<T: FromStr>() -> Vec<T> {
    std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect()
}

/// The median of `v` (the upper one of an even count).
pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

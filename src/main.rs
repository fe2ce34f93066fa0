//! pocketbench: benchmarks embedded databases the way phones and embedded boards use them.
#![allow(dead_code)]

mod error;
mod workload;

fn main() {}

//! pocketbench: benchmarks embedded databases the way phones and embedded boards use them —
//! one client, bursts of operations, think time between them — measured per operation.
//!
//! The binary (`src/main.rs`) is a thin shell over this library; benchmarks under `benches/`
//! and integration tests use the same code paths.

pub mod advise;
pub mod bench_suites;
pub mod capture;
pub mod commands;
pub mod device;
pub mod diagnose;
pub mod durability;
pub mod engine;
pub mod error;
pub mod export;
pub mod flash;
pub mod fleet;
pub mod fuzzing;
pub mod limits;
pub mod models;
pub mod output;
pub mod platform;
pub mod quick;
pub mod report;
pub mod results;
pub mod run;
#[cfg(feature = "server")]
pub mod server;
pub mod stats;
pub mod study;
pub mod workload;

/// Tool name and version, recorded in traces and results.
pub const TOOL_VERSION: &str = concat!("pocketbench ", env!("CARGO_PKG_VERSION"));

/// A stored `tool_version` in the one form every result kind writes ([`TOOL_VERSION`]'s
/// "pocketbench VERSION"): older durability and models results stored the bare version.
pub fn tool_version_of(stored: &str) -> String {
    if stored.starts_with("pocketbench ") {
        stored.to_string()
    } else {
        format!("pocketbench {stored}")
    }
}

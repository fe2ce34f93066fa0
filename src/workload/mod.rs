//! Workloads: what operations a run performs, in which order, with which delays between them.
//!
//! Every workload source — the built-in YCSB and PocketData suites, YCSB `.properties` files,
//! original PocketData JSON files and TOML specs — resolves to a [`Workload`]: a description
//! ([`WorkloadInfo`]) and two streams of operations (load phase and run phase). Writing those
//! streams through a delay model produces a trace ([`trace`]), which is the only thing the
//! replayer ever reads.

pub mod bounds;
pub mod delay;
#[cfg(test)]
mod delay_fit_tests;
pub mod generators;
#[cfg(test)]
mod golden_tests;
pub mod import;
pub mod keys;
pub mod model;
pub mod op;
pub mod overrides;
pub mod pocketdata;
pub mod properties;
pub mod resolve;
pub mod rng;
pub mod spec_toml;
pub mod trace;
pub mod untrusted;
pub mod values;
pub mod ycsb;

use model::DataModel;
use op::{Op, TimedOp};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What a workload is: enough to reproduce it and to describe it in a result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkloadInfo {
    /// Short name: `ycsb-a`, `pocketdata-ia`, or the file name of a workload file.
    pub name: String,
    /// Where it came from: `builtin`, `properties`, `pocketdata-json`, `toml`.
    pub source: String,
    pub model: DataModel,
    /// Number of load-phase operations (records inserted, or init statements).
    pub load_ops: u64,
    /// Number of run-phase operations.
    pub run_ops: u64,
    /// Every parameter in effect (for the result's environment record).
    pub params: BTreeMap<String, String>,
    /// `true` when the run stream carries delays recorded in the source (PocketData JSON
    /// `break` items); otherwise the delay model supplies them.
    pub recorded_delays: bool,
    /// Delay before the first operation, from leading `break` items of a recorded workload.
    #[serde(default)]
    pub initial_delay_ns: u64,
}

/// A workload ready to be written as a trace.
pub struct Workload {
    pub info: WorkloadInfo,
    /// Load phase: executed in one transaction before measurement starts.
    pub load: Box<dyn Iterator<Item = Op>>,
    /// Run phase. `delay_ns` is meaningful only when `info.recorded_delays` is set.
    pub run: Box<dyn Iterator<Item = TimedOp>>,
}

/// Command-line overrides of a workload's own parameters. A source that cannot honour one
/// that is set reports a bad-input error naming the flag.
#[derive(Clone, Debug, Default)]
pub struct Overrides {
    pub records: Option<u64>,
    pub ops: Option<u64>,
    pub field_count: Option<u16>,
    pub field_length: Option<u32>,
    /// `uniform|zipfian|latest|hotspot|sequential`
    pub distribution: Option<String>,
    /// Fraction of point operations that target a key that does not exist (PocketData).
    pub miss_ratio: Option<f64>,
    /// Columns to index (PocketData SQL schema), e.g. `key`, `DAT_INT_0`.
    pub indexes: Vec<String>,
}

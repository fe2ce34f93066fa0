//! Harness overhead, measured rather than assumed: the same trace replayed on the null engine
//! with no delays. Its per-operation latency is what the measurement itself adds to every
//! latency; its loop time per operation is what the harness costs between operations.

use super::pacer::Pacing;
use super::replay::{replay, Delays, SampleSink};
use super::sample::OpSample;
use crate::engine::null::NullEngine;
use crate::error::Result;
use crate::workload::trace::TraceReader;
use serde::{Deserialize, Serialize};
use std::path::Path;

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize)]
pub struct Overhead {
    pub ops: u64,
    /// Mean start→end time of a null operation: the floor under every reported latency.
    pub latency_ns_per_op: f64,
    /// Mean wall time per operation of the whole loop (decode, materialise, clocks, record).
    pub loop_ns_per_op: f64,
}

#[derive(Default)]
struct Accumulate {
    ops: u64,
    latency_ns: u64,
}

impl SampleSink for Accumulate {
    fn record(&mut self, s: &OpSample) -> Result<()> {
        self.ops += 1;
        self.latency_ns += s.latency_ns();
        Ok(())
    }
}

/// Replay `trace` on the null engine without delays.
pub fn measure(trace: &Path) -> Result<Overhead> {
    let mut reader = TraceReader::open(trace)?;
    let mut engine = NullEngine;
    let mut acc = Accumulate::default();
    let totals = replay(
        &mut engine,
        &mut reader,
        Pacing::Think,
        Delays::None,
        &mut acc,
    )?;
    let n = acc.ops.max(1) as f64;
    Ok(Overhead {
        ops: acc.ops,
        latency_ns_per_op: acc.latency_ns as f64 / n,
        loop_ns_per_op: (totals.run_end_ns - totals.run_start_ns) as f64 / n,
    })
}

//! Harness overhead, measured rather than assumed: the same trace replayed on the null engine
//! with no delays. Its per-operation latency is what the measurement itself adds to every
//! latency; its loop time per operation is what the harness costs between operations.

use super::pacer::Pacing;
use super::replay::{replay, Delays, SampleSink};
use super::sample::OpSample;
use crate::engine::null::NullEngine;
use crate::error::Result;
use crate::stats::LatencyHistogram;
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
    /// Median start→end time of a null operation (absent in results stored before it was).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub latency_ns_p50: Option<f64>,
    /// The harness's time between operations (one's end to the next one's start): median and
    /// mean.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_ns_p50: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub between_ns_mean: Option<f64>,
}

/// The overhead pass's samples, one at a time, in replay order: what [`Overhead`] reports
/// (native and JVM replays alike). In the native pass it is the sink, so its two histogram
/// records per sample (a few nanoseconds) are part of the loop it measures, as a real run's
/// spool write is part of that run's.
#[derive(Default)]
pub struct Accumulate {
    latency: LatencyHistogram,
    between: LatencyHistogram,
    last_end: Option<u64>,
}

impl SampleSink for Accumulate {
    fn record(&mut self, s: &OpSample) -> Result<()> {
        self.latency.record(s.latency_ns());
        if let Some(end) = self.last_end {
            self.between.record(s.start_ns.saturating_sub(end));
        }
        self.last_end = Some(s.end_ns);
        Ok(())
    }
}

impl Accumulate {
    /// The overhead of a pass that ran from `run_start_ns` to `run_end_ns`.
    pub fn overhead(&self, run_start_ns: u64, run_end_ns: u64) -> Overhead {
        let ops = self.latency.count();
        let some =
            |h: &LatencyHistogram, f: fn(&LatencyHistogram) -> f64| (h.count() > 0).then(|| f(h));
        Overhead {
            ops,
            latency_ns_per_op: self.latency.mean_ns(),
            loop_ns_per_op: run_end_ns.saturating_sub(run_start_ns) as f64 / ops.max(1) as f64,
            latency_ns_p50: some(&self.latency, |h| h.quantile_ns(0.5) as f64),
            between_ns_p50: some(&self.between, |h| h.quantile_ns(0.5) as f64),
            between_ns_mean: some(&self.between, LatencyHistogram::mean_ns),
        }
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
    Ok(acc.overhead(totals.run_start_ns, totals.run_end_ns))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(start_ns: u64, end_ns: u64) -> OpSample {
        OpSample {
            start_ns,
            end_ns,
            ..OpSample::default()
        }
    }

    #[test]
    fn medians_and_means_inside_and_between_operations() {
        // Operations at 0–10, 100–130, 150–160, 1150–1170 ns: inside 10, 30, 10, 20 (median
        // 10, mean 17.5); between 90, 20, 990 (median 90, mean 366.67).
        let mut acc = Accumulate::default();
        for (s, e) in [(0, 10), (100, 130), (150, 160), (1150, 1170)] {
            acc.record(&sample(s, e)).unwrap();
        }
        let o = acc.overhead(0, 2000);
        assert_eq!(o.ops, 4);
        assert_eq!(o.latency_ns_per_op, 17.5);
        assert_eq!(o.latency_ns_p50, Some(10.0));
        assert_eq!(o.between_ns_p50, Some(90.0));
        assert!((o.between_ns_mean.unwrap() - 1100.0 / 3.0).abs() < 1e-9);
        assert_eq!(o.loop_ns_per_op, 500.0);
    }

    #[test]
    fn one_operation_has_no_time_between() {
        let mut acc = Accumulate::default();
        acc.record(&sample(5, 9)).unwrap();
        let o = acc.overhead(0, 10);
        assert_eq!((o.between_ns_p50, o.between_ns_mean), (None, None));
        assert_eq!(o.latency_ns_p50, Some(4.0));
    }
}

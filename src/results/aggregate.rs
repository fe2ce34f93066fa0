//! Streaming aggregation of a run's samples: latency and response-time histograms per
//! operation kind, the time split (on-CPU, off-CPU, slept), sleep accuracy, and schedule lag
//! and backlog for open pacing. One pass over the spool (two for the backlog), constant memory.

use crate::run::sample::OpSample;
use crate::stats::{LatencyHistogram, LatencySummary};
use crate::workload::op::OpKind;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An operation that starts more than this after it was due counts as late (open pacing).
pub const LATE_THRESHOLD_NS: u64 = 1_000_000;

#[derive(Default)]
pub struct Aggregator {
    latency: BTreeMap<OpKind, LatencyHistogram>,
    response: BTreeMap<OpKind, LatencyHistogram>,
    errors: BTreeMap<OpKind, u64>,
    overshoot: LatencyHistogram,
    lag: LatencyHistogram,
    late_ops: u64,
    pub time: TimeSplit,
    pub ops: u64,
}

/// Where the run's time went, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct TimeSplit {
    /// Inside operations, on a CPU.
    pub on_cpu_ns: u64,
    /// Inside operations, off the CPU (blocked on I/O, locks, or waiting for a CPU).
    pub off_cpu_ns: u64,
    /// Delay the pacer asked to sleep, and the sleeps' real length.
    pub delay_requested_ns: u64,
    pub delay_slept_ns: u64,
    /// Number of sleeps.
    pub sleeps: u64,
}

/// Open-pacing schedule adherence.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Schedule {
    /// Operations that started more than 1 ms after they were due.
    pub late_ops: u64,
    /// Start minus intended start, microseconds.
    pub lag_us: LatencySummary,
    /// Most operations ever due but not yet started at one moment.
    pub max_backlog: u64,
    /// Fewer than 1% of operations were late.
    pub kept_up: bool,
}

impl Aggregator {
    pub fn add(&mut self, s: &OpSample) {
        let kind = s.kind();
        self.ops += 1;
        self.latency.entry(kind).or_default().record(s.latency_ns());
        self.response
            .entry(kind)
            .or_default()
            .record(s.response_ns());
        if !s.ok {
            *self.errors.entry(kind).or_default() += 1;
        }
        self.time.on_cpu_ns += s.cpu_ns.min(s.latency_ns());
        self.time.off_cpu_ns += s.off_cpu_ns();
        self.time.delay_requested_ns += s.sleep_requested_ns;
        self.time.delay_slept_ns += s.sleep_actual_ns;
        if s.sleep_requested_ns > 0 {
            self.time.sleeps += 1;
            self.overshoot
                .record(s.sleep_actual_ns.saturating_sub(s.sleep_requested_ns));
        }
        let lag = s.start_ns.saturating_sub(s.intended_ns);
        self.lag.record(lag);
        if lag > LATE_THRESHOLD_NS {
            self.late_ops += 1;
        }
    }

    /// Per-kind service-time percentiles, plus `all`.
    pub fn latency(&self) -> BTreeMap<String, LatencySummary> {
        by_kind(&self.latency)
    }

    /// Per-kind response-time percentiles (from the intended start), plus `all`.
    pub fn response(&self) -> BTreeMap<String, LatencySummary> {
        by_kind(&self.response)
    }

    pub fn errors(&self) -> BTreeMap<String, u64> {
        self.errors
            .iter()
            .map(|(k, n)| (k.name().to_string(), *n))
            .collect()
    }

    /// How far sleeps overshot their deadline, microseconds.
    pub fn sleep_overshoot(&self) -> LatencySummary {
        self.overshoot.summary()
    }

    pub fn schedule(&self, max_backlog: u64) -> Schedule {
        Schedule {
            late_ops: self.late_ops,
            lag_us: self.lag.summary(),
            max_backlog,
            kept_up: self.late_ops * 100 < self.ops.max(1),
        }
    }
}

fn by_kind(map: &BTreeMap<OpKind, LatencyHistogram>) -> BTreeMap<String, LatencySummary> {
    let mut out: BTreeMap<String, LatencySummary> = map
        .iter()
        .map(|(k, h)| (k.name().to_string(), h.summary()))
        .collect();
    let mut all = LatencyHistogram::default();
    for h in map.values() {
        all.add(h);
    }
    out.insert("all".into(), all.summary());
    out
}

/// Largest backlog of an open-paced run: at each operation's start, how many later operations
/// were already due. `starts` and `intended` iterate the same samples in order.
pub fn max_backlog(
    starts: impl Iterator<Item = u64>,
    mut intended: impl Iterator<Item = u64>,
) -> u64 {
    let mut due = 0u64; // operations with intended start <= current start
    let mut pending = intended.next();
    let mut worst = 0u64;
    for (i, start) in starts.enumerate() {
        while let Some(t) = pending {
            if t > start {
                break;
            }
            due += 1;
            pending = intended.next();
        }
        worst = worst.max(due.saturating_sub(i as u64 + 1));
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backlog_counts_operations_due_but_not_started() {
        // Due every 10 ns, but each operation takes 25 ns: the backlog grows.
        let intended: Vec<u64> = (0..5).map(|i| i * 10).collect();
        let starts = [0u64, 25, 50, 75, 100];
        assert_eq!(
            max_backlog(starts.iter().copied(), intended.iter().copied()),
            2
        );
        // Starting on time: no backlog.
        assert_eq!(
            max_backlog(intended.iter().copied(), intended.iter().copied()),
            0
        );
    }

    #[test]
    fn time_split_and_errors() {
        let mut a = Aggregator::default();
        a.add(&OpSample {
            kind: OpKind::Read.code(),
            ok: true,
            start_ns: 0,
            end_ns: 100,
            cpu_ns: 60,
            ..Default::default()
        });
        a.add(&OpSample {
            kind: OpKind::Update.code(),
            ok: false,
            intended_ns: 100,
            start_ns: 2_000_200,
            end_ns: 2_000_300,
            cpu_ns: 100,
            sleep_requested_ns: 1000,
            sleep_actual_ns: 1200,
            ..Default::default()
        });
        assert_eq!((a.time.on_cpu_ns, a.time.off_cpu_ns), (160, 40));
        assert_eq!(a.errors().get("update"), Some(&1));
        assert_eq!(a.latency()["all"].count, 2);
        assert_eq!(a.schedule(0).late_ops, 1);
        assert!((a.sleep_overshoot().max - 0.2).abs() < 0.01);
    }
}

//! Measuring a variant against the baseline: each replay is `run`'s own (the database loaded in
//! this process, evicted from the page cache, the trace replayed with its own timing in a
//! fresh process; [`super::rounds`] interleaves them with the baseline's); from the
//! samples, the app's busy time (the sum of its statements' service times, sleeps left out),
//! the busy time of its writes (and commits), p50/p95 per statement shape and the I/O. The comparison is
//! `compare`'s (Welch's interval on the difference of the means, [`Comparison`]).

use crate::error::Result;
use crate::platform::session::PlatformRequest;
use crate::results::repeats::{Comparison, Estimate};
use crate::run::{self, RunRequest, WorkloadChoice};
use crate::stats::LatencyHistogram;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One replay's figures.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Replay {
    pub busy_ns: u64,
    pub write_busy_ns: u64,
    pub errors: u64,
    pub read_bytes: u64,
    pub write_bytes: u64,
    pub syncs: u64,
    /// Time the replay spent waiting for syncs, and reading the database file.
    pub sync_ns: u64,
    pub read_ns: u64,
    /// Bytes the statements read from the database file itself (not its journal or WAL).
    pub main_read_bytes: u64,
    /// Bytes read and written in other files than the database and its journal or WAL (temporary
    /// tables, sorts, statement journals).
    pub temp_bytes: u64,
    /// Per shape (by id): p50 and p95 service time, ns.
    #[serde(skip)]
    pub shapes: BTreeMap<u32, (u64, u64)>,
    /// Wall time of the whole replay (load, eviction, replay): what the budget is spent on.
    #[serde(skip)]
    pub wall_ns: u64,
}

/// Replay `trace` (whose run operations have the shapes `run_shapes`; `writes[id]`: shape `id`
/// writes) once with `options`.
pub fn replay(
    trace: &Path,
    engine: &str,
    options: &[(String, String)],
    run_shapes: &[u32],
    writes: &[bool],
) -> Result<Replay> {
    let t0 = crate::platform::clock::mono_ns();
    let req = RunRequest {
        options: options.to_vec(),
        platform: PlatformRequest {
            freq_period_ns: 0,
            energy: crate::platform::energy::Choice::None,
            idle_baseline_ns: None,
            ..PlatformRequest::default()
        },
        ..RunRequest::plain(WorkloadChoice::Trace(trace.to_path_buf()), engine)
    };
    let prepared = run::prepare(&req)?;
    let out = run::execute(&req, prepared)?;
    let mut r = Replay::default();
    let mut hists: BTreeMap<u32, LatencyHistogram> = BTreeMap::new();
    for s in run::spill::samples(&out.spool)? {
        let s = s?;
        let ns = s.latency_ns();
        r.busy_ns += ns;
        let shape = run_shapes.get(s.seq as usize).copied();
        if shape.is_some_and(|id| writes.get(id as usize).copied().unwrap_or(false)) {
            r.write_busy_ns += ns;
        }
        r.errors += u64::from(!s.ok);
        r.read_bytes += s.io.read_bytes;
        r.write_bytes += s.io.write_bytes;
        r.syncs += s.io.syncs;
        if let Some(id) = shape {
            hists.entry(id).or_default().record(ns);
        }
    }
    if let Some(io) = out.report.io_by_kind.get("other") {
        r.temp_bytes = io.read_bytes + io.write_bytes;
    }
    if let Some(io) = out.report.io_by_kind.get("main") {
        r.main_read_bytes = io.read_bytes;
        r.read_ns = io.read_ns;
    }
    // The samples count the calls; the replay's totals also time them.
    r.sync_ns = out.report.io_by_kind.values().map(|io| io.sync_ns).sum();
    for phase in out.report.phases.values() {
        for io in phase.io_by_kind.values() {
            r.read_bytes += io.read_bytes;
            r.write_bytes += io.write_bytes;
            r.syncs += io.syncs;
        }
    }
    r.shapes = hists
        .into_iter()
        .map(|(id, h)| (id, (h.quantile_ns(0.50), h.quantile_ns(0.95))))
        .collect();
    drop(out);
    r.wall_ns = crate::platform::clock::mono_ns() - t0;
    Ok(r)
}

/// One metric of a variant beside the baseline's, in milliseconds.
#[derive(Clone, Debug, Serialize)]
pub struct Gain {
    pub baseline: Estimate,
    pub variant: Estimate,
    /// variant − baseline with its interval: negative is faster.
    pub comparison: Comparison,
}

impl Gain {
    /// From per-replay values in ns; `None` with no values.
    pub fn of(base: &[u64], variant: &[u64], level: f64) -> Option<Gain> {
        let ms = |v: &[u64]| -> Vec<f64> { v.iter().map(|&ns| ns as f64 / 1e6).collect() };
        let a = Estimate::of(&ms(base), level)?;
        let b = Estimate::of(&ms(variant), level)?;
        Some(Gain {
            baseline: a,
            variant: b,
            comparison: Comparison::of(a, b),
        })
    }

    /// The interval of the time saved (baseline − variant), in ms, when there is one.
    pub fn saved(&self) -> (f64, Option<f64>) {
        (-self.comparison.diff, self.comparison.diff_ci_half)
    }

    /// The variant is faster and the interval of the difference excludes zero.
    pub fn wins(&self) -> bool {
        let (saved, half) = self.saved();
        half.is_some_and(|h| saved - h > 0.0)
    }

    /// The variant is slower and the interval excludes zero.
    pub fn loses(&self) -> bool {
        let (saved, half) = self.saved();
        half.is_some_and(|h| saved + h < 0.0)
    }

    /// Saved time as a share of the baseline's.
    pub fn share(&self) -> f64 {
        if self.baseline.mean > 0.0 {
            self.saved().0 / self.baseline.mean
        } else {
            0.0
        }
    }
}

/// Replays of one side.
#[derive(Clone, Debug, Default)]
pub struct Side {
    pub replays: Vec<Replay>,
}

impl Side {
    pub fn values(&self, f: impl Fn(&Replay) -> u64) -> Vec<u64> {
        self.replays.iter().map(f).collect()
    }

    /// Mean of an integer figure over the replays (0 with none).
    pub fn mean(&self, f: impl Fn(&Replay) -> u64) -> f64 {
        if self.replays.is_empty() {
            return 0.0;
        }
        self.replays.iter().map(f).sum::<u64>() as f64 / self.replays.len() as f64
    }

    /// Per shape: mean p50 and p95 over the replays, ns.
    pub fn shape_means(&self) -> BTreeMap<u32, (f64, f64)> {
        let mut sum: BTreeMap<u32, (f64, f64, f64)> = BTreeMap::new();
        for r in &self.replays {
            for (id, (p50, p95)) in &r.shapes {
                let e = sum.entry(*id).or_default();
                e.0 += *p50 as f64;
                e.1 += *p95 as f64;
                e.2 += 1.0;
            }
        }
        sum.into_iter()
            .map(|(id, (a, b, n))| (id, (a / n, b / n)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gain_counts_only_when_its_interval_excludes_zero() {
        // Baseline 10, 12, 14 ms; variant 2, 3, 4 ms: 9 ms saved, clearly.
        let ms = |v: &[u64]| v.iter().map(|x| x * 1_000_000).collect::<Vec<_>>();
        let g = Gain::of(&ms(&[10, 12, 14]), &ms(&[2, 3, 4]), 0.95).unwrap();
        assert!(g.wins() && !g.loses());
        assert!((g.saved().0 - 9.0).abs() < 1e-9);
        assert!((g.share() - 0.75).abs() < 1e-9);
        // Overlapping: no verdict either way.
        let g = Gain::of(&ms(&[10, 12, 14]), &ms(&[11, 13, 12]), 0.95).unwrap();
        assert!(!g.wins() && !g.loses());
        // One replay a side: no interval, no gain.
        let g = Gain::of(&ms(&[10]), &ms(&[2]), 0.95).unwrap();
        assert!(!g.wins());
    }
}

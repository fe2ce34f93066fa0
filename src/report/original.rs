//! An imported trace's original statement durations (what each statement took in the app, as
//! the log timed it and the version 2 run records keep it) beside a replay's (the run's stored
//! per-operation samples), per statement shape: `trace stats app.pbt --run ID`.
//!
//! The trace and the run's samples are read side by side in sequence order (a sample's `seq`
//! is the run record's index in the trace), each statement grouped by its fingerprint
//! (literals as `?`, as `trace stats` prints them); at most [`MAX_SHAPES`] shapes are kept,
//! further ones counting as `(other)`.

use crate::error::{Error, Result, ResultExt};
use crate::results::store::Store;
use crate::workload::import::sql::lexer::fingerprint;
use crate::workload::op::Op;
use crate::workload::trace::{TraceItem, TraceReader};
use hdrhistogram::Histogram;
use serde::Serialize;
use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

/// Statement shapes compared (each holds two histograms); further ones are `(other)`.
pub const MAX_SHAPES: usize = 1_000;

/// One side's durations of one shape.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Durations {
    pub count: u64,
    pub p50_ns: u64,
    pub mean_ns: f64,
}

/// One statement shape, original and replayed.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Shape {
    pub fingerprint: String,
    /// Statements of this shape in the trace.
    pub count: u64,
    /// As the log timed them (statements without a recorded duration left out).
    pub original: Option<Durations>,
    /// As the replay measured them (failed ones left out).
    pub replay: Option<Durations>,
    /// Replay mean over original mean.
    pub ratio: Option<f64>,
}

/// The comparison of a whole trace with one run.
#[derive(Debug, Serialize)]
pub struct Beside {
    pub trace: String,
    pub run: i64,
    pub engine: String,
    pub statements: u64,
    /// Most frequent first.
    pub shapes: Vec<Shape>,
}

struct Side {
    hist: Histogram<u64>,
    sum: u128,
}

impl Side {
    fn new() -> Self {
        Side {
            hist: Histogram::new(3).expect("3 significant digits are valid"),
            sum: 0,
        }
    }
    fn record(&mut self, ns: u64) {
        // Auto-resizing: a value never fails to record.
        let _ = self.hist.record(ns);
        self.sum += u128::from(ns);
    }
    fn durations(&self) -> Option<Durations> {
        let n = self.hist.len();
        (n > 0).then(|| Durations {
            count: n,
            p50_ns: self.hist.value_at_quantile(0.5),
            mean_ns: self.sum as f64 / n as f64,
        })
    }
}

/// Statements grouped by shape, fed in trace order.
#[derive(Default)]
pub struct Tally {
    shapes: HashMap<String, (u64, Side, Side)>,
}

impl Default for Side {
    fn default() -> Self {
        Side::new()
    }
}

impl Tally {
    /// One statement: its shape, its recorded duration, and the replay's (when it succeeded).
    pub fn add(&mut self, shape: String, original: Option<u64>, replay: Option<u64>) {
        let key = if self.shapes.contains_key(&shape) || self.shapes.len() < MAX_SHAPES {
            shape
        } else {
            "(other)".to_string()
        };
        let e = self.shapes.entry(key).or_default();
        e.0 += 1;
        if let Some(o) = original {
            e.1.record(o);
        }
        if let Some(r) = replay {
            e.2.record(r);
        }
    }

    /// The shapes, most frequent first (ties by fingerprint).
    pub fn finish(self) -> Vec<Shape> {
        let mut out: Vec<Shape> = self
            .shapes
            .into_iter()
            .map(|(fingerprint, (count, o, r))| {
                let (original, replay) = (o.durations(), r.durations());
                let ratio = match (&original, &replay) {
                    (Some(o), Some(r)) if o.mean_ns > 0.0 => Some(r.mean_ns / o.mean_ns),
                    _ => None,
                };
                Shape {
                    fingerprint,
                    count,
                    original,
                    replay,
                    ratio,
                }
            })
            .collect();
        out.sort_by(|a, b| {
            b.count
                .cmp(&a.count)
                .then(a.fingerprint.cmp(&b.fingerprint))
        });
        out
    }
}

/// What a run record is grouped by: its SQL's fingerprint, else its operation kind.
fn shape_of(op: &Op) -> String {
    match op {
        Op::Sql { sql } | Op::SqlArgs { sql, .. } => fingerprint(sql),
        other => format!("({})", other.kind().name()),
    }
}

/// `trace` beside run `run` of `store` (which must have replayed that very trace).
pub fn beside(trace: &Path, store: &Store, run: i64) -> Result<Beside> {
    let summary = store.summary(run)?;
    if store.sample_count(run)? == 0 {
        return Err(Error::input(format!(
            "--run {run}: the run stored no per-statement samples (it ran with --no-samples)"
        )));
    }
    let mut stmt = store
        .conn()
        .prepare("SELECT seq, end_ns - start_ns, ok FROM op_samples WHERE run_id = ?1 ORDER BY seq")
        .run_err("results store: samples")?;
    let mut samples = stmt
        .query_map([run], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, i64>(1)?,
                r.get::<_, bool>(2)?,
            ))
        })
        .run_err("results store: samples")?
        .peekable();
    let mut reader = TraceReader::open(trace)?;
    let mut tally = Tally::default();
    let mut seq = 0i64;
    while let Some(item) = reader.next_item()? {
        let TraceItem::Run(t) = item else { continue };
        while samples
            .peek()
            .is_some_and(|s| s.as_ref().is_ok_and(|s| s.0 < seq))
        {
            samples.next();
        }
        let replay = match samples.peek() {
            Some(Ok((s, ns, ok))) if *s == seq => Some((*ok).then_some((*ns).max(0) as u64)),
            Some(Err(_)) => {
                return Err(Error::failed("results store: samples: cannot read a row"));
            }
            _ => None,
        }
        .flatten();
        tally.add(shape_of(&t.op), t.recorded.and_then(|r| r.dur_ns), replay);
        seq += 1;
    }
    let digest = reader.totals().map(|t| t.digest_hex()).unwrap_or_default();
    if digest != summary.trace.digest {
        return Err(Error::input(format!(
            "--run {run}: the run replayed the trace with digest {}, not {} (digest {digest})",
            summary.trace.digest,
            trace.display()
        )));
    }
    Ok(Beside {
        trace: trace.display().to_string(),
        run,
        engine: summary.engine.name.clone(),
        statements: seq as u64,
        shapes: tally.finish(),
    })
}

/// The comparison as text: one line per shape.
pub fn render(b: &Beside) -> String {
    use crate::output::units::ns;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {} statements, as the log timed them beside run {} ({})",
        b.trace, b.statements, b.run, b.engine
    );
    let _ = writeln!(
        out,
        "  {:>8}  {:>10}  {:>10}  {:>10}  {:>10}  {:>7}  statement",
        "count", "orig p50", "orig mean", "replay p50", "mean", "ratio"
    );
    let cell = |d: &Option<Durations>, p50: bool| {
        d.as_ref().map_or("-".to_string(), |d| {
            if p50 {
                ns(d.p50_ns)
            } else {
                ns(d.mean_ns.round() as u64)
            }
        })
    };
    for s in &b.shapes {
        let _ = writeln!(
            out,
            "  {:>8}  {:>10}  {:>10}  {:>10}  {:>10}  {:>7}  {}",
            s.count,
            cell(&s.original, true),
            cell(&s.original, false),
            cell(&s.replay, true),
            cell(&s.replay, false),
            s.ratio.map_or("-".to_string(), |r| format!("{r:.2}×")),
            s.fingerprint.chars().take(100).collect::<String>()
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_pair_original_and_replayed_durations() {
        let mut t = Tally::default();
        // SELECT: the log timed 100, 200 and 600 ns; the replay 50, 150 and a failure.
        for (o, r) in [(100, Some(50)), (200, Some(150)), (600, None)] {
            t.add("SELECT ?".into(), Some(o), r);
        }
        // BEGIN: never timed by the log, replayed in 10 ns.
        t.add("BEGIN".into(), None, Some(10));
        let shapes = t.finish();
        assert_eq!(shapes.len(), 2);
        let s = &shapes[0];
        assert_eq!((s.fingerprint.as_str(), s.count), ("SELECT ?", 3));
        assert_eq!(
            s.original,
            Some(Durations {
                count: 3,
                p50_ns: 200,
                mean_ns: 300.0
            })
        );
        assert_eq!(
            s.replay,
            Some(Durations {
                count: 2,
                p50_ns: 50,
                mean_ns: 100.0
            })
        );
        // Mean 100 over mean 300.
        assert_eq!(s.ratio, Some(1.0 / 3.0));
        assert_eq!(shapes[1].original, None);
        assert_eq!(shapes[1].ratio, None);
    }

    #[test]
    fn shapes_beyond_the_limit_count_as_other() {
        let mut t = Tally::default();
        for i in 0..MAX_SHAPES + 2 {
            t.add(format!("S{i}"), Some(1), None);
        }
        let shapes = t.finish();
        assert_eq!(shapes.len(), MAX_SHAPES + 1);
        assert_eq!(
            (shapes[0].fingerprint.as_str(), shapes[0].count),
            ("(other)", 2)
        );
    }
}

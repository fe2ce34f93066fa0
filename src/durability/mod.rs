//! `pocketbench durability`: which configurations lose acknowledged commits when the power
//! fails. For each configuration the workload runs once to count its I/O events, then once per
//! crash point with the power failing at that event ([`crash_vfs`]); each time the database is
//! recovered and checked ([`sqlite`]). The crash points are every event when there are no
//! more than `--crashes`, else `--crashes` distinct events drawn from the seed, so a finding
//! replays exactly with `--replay-crash SEED:POINT`. The same workload is also timed on the
//! real device (real syncs), so speed and safety sit side by side.

pub mod crash_vfs;
pub mod report;
pub mod sqlite;
pub mod volatile;

use crate::error::Result;
use crate::workload::rng::Rng;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// What to run for every configuration.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Crash points per configuration (at most).
    pub crashes: u64,
    /// Transactions in the workload.
    pub txns: u64,
    pub rows_per_txn: u32,
    pub seed: u64,
    /// Keep a random half of the unsynced sectors at the failure instead of none.
    pub torn: bool,
    /// Only this crash point (`--replay-crash SEED:POINT`).
    pub replay: Option<u64>,
    /// Also time the workload on the real device.
    pub timed: bool,
}

/// One simulated power failure and what recovery found.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct PointResult {
    /// The I/O event at which the power failed (1 = the first write, truncate, sync or delete).
    pub point: u64,
    /// Transactions acknowledged before the failure (1..=this).
    pub acknowledged: u64,
    /// The transaction whose COMMIT had not returned.
    pub in_flight: Option<u64>,
    /// Acknowledged transactions missing or incomplete after recovery.
    pub lost: u64,
    /// Unacknowledged transactions present in part.
    pub partial: u64,
    /// Transactions present that were never attempted.
    pub phantom: u64,
    /// `PRAGMA integrity_check`'s complaint, why recovery failed, or the rows present before
    /// the workload damaged.
    pub integrity: Option<String>,
    /// The counter row disagreeing with the rows.
    pub inconsistent: Option<String>,
    /// Reopening the database and reading it for the first time (rollback or WAL recovery).
    pub recovery_ns: u64,
}

impl PointResult {
    /// Anything wrong at this point.
    pub fn failed(&self) -> bool {
        self.lost > 0
            || self.partial > 0
            || self.phantom > 0
            || self.integrity.is_some()
            || self.inconsistent.is_some()
    }

    /// One line for the first finding of a configuration.
    pub fn text(&self, seed: u64) -> String {
        let mut what = Vec::new();
        if self.lost > 0 {
            what.push(format!(
                "{} of {} acknowledged commits lost",
                self.lost, self.acknowledged
            ));
        }
        if self.partial > 0 {
            what.push(format!("{} transaction(s) present in part", self.partial));
        }
        if self.phantom > 0 {
            what.push(format!(
                "{} never-attempted transaction(s) present",
                self.phantom
            ));
        }
        if let Some(i) = &self.integrity {
            what.push(format!("integrity: {i}"));
        }
        if let Some(i) = &self.inconsistent {
            what.push(i.clone());
        }
        format!(
            "{} (replay: --replay-crash {seed}:{})",
            what.join("; "),
            self.point
        )
    }
}

/// Everything found for one configuration.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConfigReport {
    pub engine: String,
    pub config: Vec<(String, String)>,
    /// How the failure was simulated.
    pub model: String,
    /// I/O events of the whole workload.
    pub events: u64,
    pub crashes: u64,
    /// Crash points after which an acknowledged commit was missing.
    pub crashes_losing_commits: u64,
    /// Acknowledged commits lost, summed over the crash points, and the most at one point.
    pub acknowledged_lost: u64,
    pub most_lost_at_once: u64,
    pub integrity_failures: u64,
    /// Partial or never-attempted transactions, or a counter out of step.
    pub atomicity_violations: u64,
    pub recovery_p50_ns: u64,
    pub recovery_max_ns: u64,
    /// The workload on the real device (real syncs).
    pub txns_per_s: Option<f64>,
    pub first_finding: Option<String>,
    /// Every crash point that found something (all of them with `--replay-crash`).
    pub findings: Vec<PointResult>,
}

/// A whole `durability` run as stored (results store kind `durability`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct DurabilityRun {
    /// Id in the results store (0 until stored).
    #[serde(default)]
    pub id: i64,
    pub created_at: String,
    pub tool_version: String,
    pub engine: String,
    pub txns: u64,
    pub rows_per_txn: u32,
    pub seed: u64,
    pub torn: bool,
    /// The crash point replayed, if this was a replay.
    #[serde(default)]
    pub replay: Option<u64>,
    pub configurations: Vec<ConfigReport>,
}

/// The results store's kind for durability runs.
pub const SUITE: &str = "durability";

/// The crash points for a workload of `events` I/O events.
pub fn points(events: u64, plan: &Plan) -> Vec<u64> {
    if let Some(p) = plan.replay {
        return vec![p];
    }
    if events <= plan.crashes {
        return (1..=events).collect();
    }
    let mut rng = Rng::derive(plan.seed, "crash-points");
    let mut chosen = std::collections::BTreeSet::new();
    while (chosen.len() as u64) < plan.crashes {
        chosen.insert(rng.range_inclusive(1, events));
    }
    chosen.into_iter().collect()
}

/// Run the plan for one SQLite configuration in `dir` (a private scratch directory).
pub fn run_sqlite(
    dir: &Path,
    cfg: &sqlite::Config,
    plan: &Plan,
    mut progress: impl FnMut(u64, u64),
) -> Result<ConfigReport> {
    let base = sqlite::prepare(dir, cfg)?;
    let events = sqlite::count_events(&base, dir, cfg, plan)?;
    let points = points(events, plan);
    let mut results = Vec::with_capacity(points.len());
    for (i, &p) in points.iter().enumerate() {
        results.push(sqlite::crash_at(&base, dir, cfg, plan, p)?);
        progress(i as u64 + 1, points.len() as u64);
    }
    let txns_per_s = if plan.timed {
        Some(sqlite::speed(&base, dir, cfg, plan)?)
    } else {
        None
    };
    let mut recovery: Vec<u64> = results.iter().map(|r| r.recovery_ns).collect();
    recovery.sort_unstable();
    let findings: Vec<PointResult> = results
        .iter()
        .filter(|r| plan.replay.is_some() || r.failed())
        .cloned()
        .collect();
    Ok(ConfigReport {
        engine: "sqlite".into(),
        config: vec![
            ("journal_mode".into(), cfg.journal_mode.clone()),
            ("synchronous".into(), cfg.synchronous.clone()),
        ],
        model: if plan.torn {
            "power loss, torn: a random half of the unsynced 512-byte sectors survive (SQLite VFS)"
        } else {
            "power loss: every write not synced is lost, and new files not synced (SQLite VFS)"
        }
        .into(),
        events,
        crashes: results.len() as u64,
        crashes_losing_commits: results.iter().filter(|r| r.lost > 0).count() as u64,
        acknowledged_lost: results.iter().map(|r| r.lost).sum(),
        most_lost_at_once: results.iter().map(|r| r.lost).max().unwrap_or(0),
        integrity_failures: results.iter().filter(|r| r.integrity.is_some()).count() as u64,
        atomicity_violations: results
            .iter()
            .filter(|r| r.partial > 0 || r.phantom > 0 || r.inconsistent.is_some())
            .count() as u64,
        recovery_p50_ns: recovery.get(recovery.len() / 2).copied().unwrap_or(0),
        recovery_max_ns: recovery.last().copied().unwrap_or(0),
        txns_per_s,
        first_finding: results
            .iter()
            .find(|r| r.failed())
            .map(|r| r.text(plan.seed)),
        findings,
    })
}

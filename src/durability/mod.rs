//! `pocketbench durability`: which configurations lose acknowledged commits when the power
//! fails. For each configuration the workload runs once to count its I/O events, then once per
//! crash point with the power failing at that event ([`crash_vfs`]); each time the database is
//! recovered and checked ([`sqlite`]). The crash points are every event when there are no
//! more than `--crashes`, else `--crashes` distinct events drawn from the seed, so a finding
//! replays exactly with `--replay-crash SEED:POINT`. The same workload is also timed on the
//! real device (real syncs), so speed and safety sit side by side. [`args`] holds the
//! command's flags and the request they make; [`measure`] runs a request.

pub mod args;
pub mod checker;
pub mod crash_vfs;
pub mod engines;
pub mod fsrec;
pub mod judge;
pub mod jvm;
pub mod killed;
pub mod recorded;
pub mod redb;
pub mod report;
pub mod scratch;
pub mod sqlite;
pub mod traced;
pub mod volatile;

use crate::error::Result;
use crate::workload::rng::Rng;
pub use judge::judge;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

/// Rows of transaction 0 in the prepared database.
pub const PRELOAD: u64 = 64;

/// Deterministic payload of one row, so a torn page that still parses is caught.
pub fn payload(txn: u64, part: u64) -> Vec<u8> {
    let (len, mut rng) = payload_stream(txn, part);
    (0..len).map(|_| rng.below(256) as u8).collect()
}

/// Whether `data` is the payload of `(txn, part)` ([`payload`]), compared as it is generated
/// (the checks compare every row read back; building each payload first cost a third of a
/// check).
pub fn is_payload(txn: u64, part: u64, data: &[u8]) -> bool {
    let (len, mut rng) = payload_stream(txn, part);
    data.len() == len && data.iter().all(|&b| b == rng.below(256) as u8)
}

/// A payload's length and the generator of its bytes.
fn payload_stream(txn: u64, part: u64) -> (usize, Rng) {
    let mut rng = Rng::new(txn.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ part);
    (96 + (rng.below(160) as usize), rng)
}

/// Each transaction's rows found after recovery: (part, whether its bytes are the payload of
/// (transaction, part), [`is_payload`]). Readers compare each row as they read it, so no row's
/// bytes are copied out of the engine to be compared later.
pub type ByTxn = BTreeMap<u64, Vec<(u64, bool)>>;

/// The transaction workload (`--workload`). Every row is `(txn, part, payload(txn, part))`:
/// the transaction that wrote it, its part, and bytes derived from both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Workload {
    /// Each transaction inserts rows of its own (a log, a message store): the file grows.
    #[default]
    Append,
    /// Each transaction rewrites rows of the preloaded table in place (settings, app state):
    /// a rollback journal must restore the pages it overwrote.
    Update,
}

impl Workload {
    pub fn name(self) -> &'static str {
        match self {
            Workload::Append => "append",
            Workload::Update => "update",
        }
    }
}

/// The parts transaction `txn` (from 1) writes: parts `0..rows` of its own (append), or the
/// preloaded parts it rewrites (update): `((txn − 1) · rows + j) mod PRELOAD` for `j < rows`
/// (`rows` is at most [`PRELOAD`] there, so they are distinct).
pub fn parts(w: Workload, txn: u64, rows: u64) -> Vec<u64> {
    match w {
        Workload::Append => (0..rows).collect(),
        Workload::Update => (0..rows)
            .map(|j| (txn.saturating_sub(1) * rows + j) % PRELOAD)
            .collect(),
    }
}

/// Under the update workload, the transaction whose row holds preloaded part `part` after
/// transaction `after` (0: still the preload's).
pub fn last_writer(part: u64, after: u64, rows: u64) -> u64 {
    // Transaction t rewrites the `rows` parts from ((t − 1) · rows) mod PRELOAD on, wrapping.
    let writes = |t: u64| (part + PRELOAD - ((t - 1) * rows) % PRELOAD) % PRELOAD < rows;
    (1..=after).rev().find(|&t| writes(t)).unwrap_or(0)
}

/// An engine configuration under test: how to prepare its database, run the workload up to a
/// power failure, recover and read back what survived.
pub trait Subject {
    fn engine(&self) -> &'static str;
    fn config(&self) -> Vec<(String, String)>;
    /// How the failure is simulated, for the output.
    fn model(&self, torn: bool) -> String;
    /// Create the starting database in `dir`.
    fn prepare(&self, dir: &Path) -> Result<()>;
    /// I/O events of the whole workload when the power never fails.
    fn count_events(&self, dir: &Path, plan: &Plan) -> Result<u64>;
    /// The first event worth a crash point (recordings: the first after the engine opened).
    fn first_point(&self) -> u64 {
        1
    }
    /// The crash states tried at `point` (models that allow more than one outcome).
    fn states(&self, _plan: &Plan, _point: u64) -> u64 {
        1
    }
    /// Fail the power at event `point` (`events + 1`: after the workload), leaving crash
    /// state `state` of [`Subject::states`], recover, check.
    fn crash_at(&self, dir: &Path, plan: &Plan, point: u64, state: u64) -> Result<PointResult>;
    /// Transactions per second on the real device (real syncs).
    fn speed(&self, dir: &Path, plan: &Plan) -> Result<f64>;
}

/// Transactions per second of `txn(1..=plan.txns)`, each call one transaction.
pub fn time_transactions(plan: &Plan, mut txn: impl FnMut(u64) -> Result<()>) -> Result<f64> {
    let t0 = crate::platform::clock::mono_ns();
    for i in 1..=plan.txns {
        txn(i)?;
    }
    let ns = (crate::platform::clock::mono_ns() - t0).max(1);
    Ok(plan.txns as f64 * 1e9 / ns as f64)
}

/// The torn-write choice for crash point `point`: each unsynced sector (and truncate, and new
/// file's entry) survives with probability ½, drawn from the seed; `None` without `--torn`.
pub fn survivor(plan: &Plan, point: u64) -> Option<impl FnMut() -> bool> {
    let mut rng = Rng::derive(plan.seed, &format!("power-failure-{point}"));
    plan.torn.then_some(move || rng.below(2) == 1)
}

thread_local! {
    static QUIET: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Run engine code that may panic on a damaged file (redb asserts on some torn files): a panic
/// becomes an error carrying its message, and is not printed.
pub fn contain<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET.with(|q| q.get()) {
                previous(info)
            }
        }));
    });
    QUIET.with(|q| q.set(true));
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    r.map_err(|p| {
        let text = p
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic".into());
        format!(
            "panicked: {}",
            text.split_whitespace().collect::<Vec<_>>().join(" ")
        )
    })
}

/// What to run for every configuration.
#[derive(Clone, Debug, Default)]
pub struct Plan {
    /// Crash points per configuration (at most).
    pub crashes: u64,
    /// Transactions in the workload.
    pub txns: u64,
    pub rows_per_txn: u32,
    pub workload: Workload,
    /// `--workload` naming a workload or trace instead of `append`/`update`.
    pub trace: Option<String>,
    pub seed: u64,
    /// Keep a random half of the unsynced sectors at the failure instead of none.
    pub torn: bool,
    /// Only this crash point (`--replay-crash SEED:POINT[/STATE]`).
    pub replay: Option<u64>,
    /// The crash state replayed at that point (0 unless the model allows several).
    pub replay_state: u64,
    /// Write the replayed crash state here as a directory (`--replay-dir`).
    pub replay_dir: Option<std::path::PathBuf>,
    /// Crash states per crash point, at most, where the persistence model allows several.
    pub states: u64,
    /// Also time the workload on the real device.
    pub timed: bool,
}

/// One simulated power failure and what recovery found.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct PointResult {
    /// The I/O event at which the power failed (1 = the first write, truncate, sync or delete).
    pub point: u64,
    /// Which of the crash states the model allows at that point (0: the first).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub state: u64,
    /// With `--replay-crash` under a recorded model: every call the failure lost or tore.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub calls: Vec<String>,
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
    /// An ordering violation: a commit present while an earlier acknowledged one is missing
    /// (no prefix of the commits explains what survived).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ordering: Option<String>,
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
            || self.ordering.is_some()
    }

    /// One line for the first finding of a configuration; `replay` is the command line that
    /// runs this configuration at this point again ([`replay_command`]).
    pub fn text(&self, replay: &str) -> String {
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
        if let Some(o) = &self.ordering {
            what.push(format!("ordering: {o}"));
        }
        format!("{} (replay: {replay})", what.join("; "))
    }
}

/// The flags that replay crash point `at` of `subject` alone, with the same workload:
/// `--engine sqlite --config journal_mode=wal --config synchronous=off --replay-crash 1:29`
/// (and `--torn`, `--workload update`, `--txns`, `--rows-per-txn` when not the defaults).
pub fn replay_command(subject: &dyn Subject, plan: &Plan, at: &PointResult) -> String {
    let mut f = vec![format!("--engine {}", subject.engine())];
    for (k, v) in subject.config() {
        f.push(format!("--config {k}={v}"));
    }
    if let Some(t) = &plan.trace {
        f.push(format!("--workload {t}"));
    } else if plan.workload != Workload::Append {
        f.push(format!("--workload {}", plan.workload.name()));
    }
    if plan.txns != args::DEFAULT_TXNS {
        f.push(format!("--txns {}", plan.txns));
    }
    if plan.rows_per_txn != args::DEFAULT_ROWS_PER_TXN {
        f.push(format!("--rows-per-txn {}", plan.rows_per_txn));
    }
    if plan.torn {
        f.push("--torn".into());
    }
    // A process crash's point may carry the state it was taken in (`POINT/STATE`).
    let state = if at.state > 0 {
        format!("/{}", at.state)
    } else {
        String::new()
    };
    f.push(format!("--replay-crash {}:{}{state}", plan.seed, at.point));
    f.join(" ")
}

fn is_zero(v: &u64) -> bool {
    *v == 0
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
    /// Crash points tried (0 in runs stored before they were counted apart).
    #[serde(default)]
    pub points: u64,
    /// Crash states tried: one per crash point, or several where the persistence model leaves
    /// more than one outcome (`--states`).
    pub crashes: u64,
    /// Crash states after which an acknowledged commit was missing.
    pub crashes_losing_commits: u64,
    /// Acknowledged commits lost, summed over the crash points, and the most at one point.
    pub acknowledged_lost: u64,
    pub most_lost_at_once: u64,
    pub integrity_failures: u64,
    /// Partial or never-attempted transactions, or a counter out of step.
    pub atomicity_violations: u64,
    /// Crash states with an ordering violation: a commit present while an earlier
    /// acknowledged one is missing.
    #[serde(default)]
    pub ordering_violations: u64,
    pub recovery_p50_ns: u64,
    pub recovery_max_ns: u64,
    /// The workload on the real device (real syncs).
    pub txns_per_s: Option<f64>,
    pub first_finding: Option<String>,
    /// The first ordering violation, with the flags that replay it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_ordering: Option<String>,
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
    /// Older runs were all `append`.
    #[serde(default)]
    pub workload: Workload,
    /// `--workload` naming a workload or trace (then `workload` is unused).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    pub seed: u64,
    pub torn: bool,
    /// The crash point replayed, if this was a replay.
    #[serde(default)]
    pub replay: Option<u64>,
    pub configurations: Vec<ConfigReport>,
}

/// The results store's kind for durability runs.
pub const SUITE: &str = "durability";

/// The crash points for a workload of `events` I/O events: `first..=events`, and
/// `events + 1` (after the workload, before anything more is written back).
pub fn points(events: u64, first: u64, plan: &Plan) -> Vec<u64> {
    if let Some(p) = plan.replay {
        return vec![p];
    }
    let last = events + 1;
    let first = first.clamp(1, last);
    if last - first < plan.crashes {
        return (first..=last).collect();
    }
    let mut rng = Rng::derive(plan.seed, "crash-points");
    let mut chosen = std::collections::BTreeSet::new();
    while (chosen.len() as u64) < plan.crashes {
        chosen.insert(rng.range_inclusive(first, last));
    }
    chosen.into_iter().collect()
}

/// Run the plan for one configuration in `dir` (a private scratch directory).
pub fn run_config(
    dir: &Path,
    subject: &dyn Subject,
    plan: &Plan,
    mut progress: impl FnMut(u64, u64),
) -> Result<ConfigReport> {
    subject.prepare(dir)?;
    let events = subject.count_events(dir, plan)?;
    let points = points(events, subject.first_point(), plan);
    let mut results = Vec::with_capacity(points.len());
    for (i, &p) in points.iter().enumerate() {
        let states = match plan.replay {
            Some(_) => plan.replay_state..plan.replay_state + 1,
            None => 0..subject.states(plan, p),
        };
        for state in states {
            results.push(subject.crash_at(dir, plan, p, state)?);
        }
        progress(i as u64 + 1, points.len() as u64);
    }
    let txns_per_s = if plan.timed {
        Some(subject.speed(dir, plan)?)
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
        engine: subject.engine().into(),
        config: subject.config(),
        model: subject.model(plan.torn),
        events,
        points: points.len() as u64,
        crashes: results.len() as u64,
        crashes_losing_commits: results.iter().filter(|r| r.lost > 0).count() as u64,
        acknowledged_lost: results.iter().map(|r| r.lost).sum(),
        most_lost_at_once: results.iter().map(|r| r.lost).max().unwrap_or(0),
        integrity_failures: results.iter().filter(|r| r.integrity.is_some()).count() as u64,
        atomicity_violations: results
            .iter()
            .filter(|r| r.partial > 0 || r.phantom > 0 || r.inconsistent.is_some())
            .count() as u64,
        ordering_violations: results.iter().filter(|r| r.ordering.is_some()).count() as u64,
        recovery_p50_ns: recovery.get(recovery.len() / 2).copied().unwrap_or(0),
        recovery_max_ns: recovery.last().copied().unwrap_or(0),
        txns_per_s,
        first_finding: results
            .iter()
            .find(|r| r.failed())
            .map(|r| r.text(&replay_command(subject, plan, r))),
        first_ordering: results.iter().find_map(|r| {
            let o = r.ordering.as_ref()?;
            Some(format!(
                "{o} (replay: {})",
                replay_command(subject, plan, r)
            ))
        }),
        findings,
    })
}

/// Run every configuration of `req`, each in a fresh scratch directory, and return the run
/// (not stored: the caller stores it, alone or as a study's cell).
pub fn measure(req: &args::Request) -> Result<DurabilityRun> {
    let plan = &req.plan;
    let mut run = DurabilityRun {
        id: 0,
        created_at: crate::platform::clock::utc_now(),
        tool_version: crate::TOOL_VERSION.into(),
        engine: req.configs[0].engine().into(),
        txns: plan.txns,
        rows_per_txn: plan.rows_per_txn,
        workload: plan.workload,
        trace: plan.trace.clone(),
        seed: plan.seed,
        torn: plan.torn,
        replay: plan.replay,
        configurations: Vec::new(),
    };
    for cfg in &req.configs {
        let scratch =
            crate::platform::cleanup::TempDir::new("pocketbench-durability-", Some(&req.parent))
                .map_err(|e| {
                    crate::error::Error::failed(format!("{}: {e}", req.parent.display()))
                })?;
        let named: Vec<String> = cfg
            .config()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        crate::output::progress::phase(&format!(
            "durability: {} {}",
            cfg.engine(),
            named.join(" ")
        ));
        let report = run_config(scratch.path(), cfg.as_ref(), plan, |_, _| {});
        // A configuration's checker process ends with it (it runs in the scratch directory).
        checker::finish();
        run.configurations.push(report?);
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the readers store for each row: its payload is intact only byte for byte, at its
    /// own length, for its own transaction and part.
    #[test]
    fn a_payload_is_recognised_only_when_every_byte_is_its_own() {
        let p = payload(7, 3);
        assert!((96..256).contains(&p.len()));
        assert!(is_payload(7, 3, &p));
        let mut flipped = p.clone();
        *flipped.last_mut().unwrap() ^= 1;
        assert!(!is_payload(7, 3, &flipped));
        assert!(!is_payload(7, 3, &p[..p.len() - 1]));
        assert!(!is_payload(7, 3, &[p.as_slice(), &[0]].concat()));
        assert!(!is_payload(7, 4, &p));
        assert!(!is_payload(8, 3, &p));
    }
}

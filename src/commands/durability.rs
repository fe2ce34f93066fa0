//! `pocketbench durability`: run the power-loss simulation for every requested configuration
//! and print speed and safety side by side (or JSON).

use crate::durability::{self, sqlite::Config, ConfigReport, Plan};
use crate::error::{Error, Result};
use crate::limits::escape;
use crate::output::units::ns;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// Engines whose I/O the simulation can interpose.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DurabilityEngine {
    /// SQLite through the crash VFS.
    Sqlite,
}

const JOURNAL_MODES: &[&str] = &["delete", "truncate", "persist", "wal"];
const SYNCHRONOUS: &[&str] = &["off", "normal", "full", "extra"];
/// Upper bounds of the sizes (docs/limits.md).
const MAX_CRASHES: u64 = 100_000;
const MAX_TXNS: u64 = 10_000;
const MAX_ROWS: u32 = 1_000;

#[derive(Args, Debug)]
pub struct DurabilityArgs {
    /// The engine (SQLite: its I/O is interposed by a VFS; the other engines need a
    /// file-system-level simulation, not built yet).
    #[arg(long, value_enum, default_value = "sqlite")]
    pub engine: DurabilityEngine,
    /// KEY=V[,V…] (repeatable): journal_mode (delete, truncate, persist, wal) and synchronous
    /// (off, normal, full, extra); every combination is run. Default: journal_mode=delete,wal
    /// and synchronous=off,normal,full.
    #[arg(long = "config", value_name = "KEY=V[,V…]")]
    pub config: Vec<String>,
    /// Power failures per configuration: every I/O event of the workload when it has no more,
    /// else this many events drawn from the seed (at most 100 000).
    #[arg(long, default_value_t = 200)]
    pub crashes: u64,
    /// Transactions in the workload (at most 10 000).
    #[arg(long, default_value_t = 50)]
    pub txns: u64,
    /// Rows each transaction inserts (at most 1 000).
    #[arg(long, default_value_t = 3)]
    pub rows_per_txn: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Torn writes: a random half of the unsynced 512-byte sectors survive the failure
    /// (default: none do).
    #[arg(long)]
    pub torn: bool,
    /// Replay one power failure: the seed and crash point a finding printed.
    #[arg(long, value_name = "SEED:POINT")]
    pub replay_crash: Option<String>,
    /// Do not time the workload on the real device.
    #[arg(long)]
    pub no_speed: bool,
    /// Scratch directory on the storage to time (default: the system's temporary directory).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    #[arg(long)]
    pub json: bool,
    /// No progress on stderr.
    #[arg(long, short)]
    pub quiet: bool,
}

fn values(key: &str, text: &str, allowed: &[&str]) -> Result<Vec<String>> {
    text.split(',')
        .map(|v| {
            let v = v.trim().to_ascii_lowercase();
            if allowed.contains(&v.as_str()) {
                Ok(v)
            } else {
                Err(Error::input(format!(
                    "--config {key}: {} is not one of {}",
                    escape(&v),
                    allowed.join(", ")
                )))
            }
        })
        .collect()
}

/// The configurations to run, in order.
fn configs(pairs: &[String]) -> Result<Vec<Config>> {
    let (mut modes, mut syncs) = (None, None);
    for p in pairs {
        let Some((k, v)) = p.split_once('=') else {
            return Err(Error::input(format!(
                "--config {}: expected KEY=VALUE",
                escape(p)
            )));
        };
        match k.trim() {
            "journal_mode" => modes = Some(values("journal_mode", v, JOURNAL_MODES)?),
            "synchronous" => syncs = Some(values("synchronous", v, SYNCHRONOUS)?),
            other => {
                return Err(Error::input(format!(
                    "--config {}: unknown key (journal_mode, synchronous)",
                    escape(other)
                )))
            }
        }
    }
    let modes = modes.unwrap_or_else(|| vec!["delete".into(), "wal".into()]);
    let syncs = syncs.unwrap_or_else(|| vec!["off".into(), "normal".into(), "full".into()]);
    Ok(modes
        .iter()
        .flat_map(|m| {
            syncs.iter().map(move |s| Config {
                journal_mode: m.clone(),
                synchronous: s.clone(),
            })
        })
        .collect())
}

fn bounded<T: PartialOrd + std::fmt::Display>(flag: &str, v: T, lo: T, hi: T) -> Result<T> {
    if v < lo || v > hi {
        return Err(Error::input(format!("{flag} {v}: must be {lo} to {hi}")));
    }
    Ok(v)
}

fn plan(a: &DurabilityArgs) -> Result<Plan> {
    let (seed, replay) = match &a.replay_crash {
        None => (a.seed, None),
        Some(text) => {
            let parsed = text
                .split_once(':')
                .and_then(|(s, p)| Some((s.trim().parse().ok()?, p.trim().parse().ok()?)))
                .filter(|&(_, p): &(u64, u64)| p >= 1);
            let Some((seed, point)) = parsed else {
                return Err(Error::input(format!(
                    "--replay-crash {}: expected SEED:POINT (POINT from 1)",
                    escape(text)
                )));
            };
            (seed, Some(point))
        }
    };
    Ok(Plan {
        crashes: bounded("--crashes", a.crashes, 1, MAX_CRASHES)?,
        txns: bounded("--txns", a.txns, 1, MAX_TXNS)?,
        rows_per_txn: bounded("--rows-per-txn", a.rows_per_txn, 1, MAX_ROWS)?,
        seed,
        torn: a.torn,
        replay,
        timed: !a.no_speed && replay.is_none(),
    })
}

pub fn main(a: &DurabilityArgs) -> Result<i32> {
    let DurabilityEngine::Sqlite = a.engine;
    let configs = configs(&a.config)?;
    let plan = plan(a)?;
    let parent = a.dir.clone().unwrap_or_else(std::env::temp_dir);
    if !parent.is_dir() {
        return Err(Error::input(format!(
            "--dir {}: not a directory",
            escape(&parent.display().to_string())
        )));
    }
    crate::output::progress::set_quiet(a.quiet || a.json);
    let mut reports = Vec::new();
    for cfg in &configs {
        let scratch = tempfile::Builder::new()
            .prefix("pocketbench-durability-")
            .tempdir_in(&parent)
            .map_err(|e| Error::failed(format!("{}: {e}", parent.display())))?;
        crate::output::progress::phase(&format!(
            "journal_mode={} synchronous={}",
            cfg.journal_mode, cfg.synchronous
        ));
        reports.push(durability::run_sqlite(
            scratch.path(),
            cfg,
            &plan,
            |_, _| {},
        )?);
    }
    if a.json {
        super::print_json(&serde_json::json!({
            "engine": "sqlite",
            "txns": plan.txns,
            "rows_per_txn": plan.rows_per_txn,
            "seed": plan.seed,
            "torn": plan.torn,
            "configurations": reports,
        }))?;
    } else {
        print!("{}", text(&reports, &plan));
    }
    Ok(0)
}

/// The table: one row per configuration, speed beside safety; then the first finding of each.
pub fn text(reports: &[ConfigReport], plan: &Plan) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(
        o,
        "durability: sqlite, {} transactions of {} rows, seed {}",
        plan.txns, plan.rows_per_txn, plan.seed
    );
    if let Some(r) = reports.first() {
        let _ = writeln!(o, "model: {}", r.model);
    }
    let _ = writeln!(
        o,
        "\n{:<13}{:<12}{:>9}{:>8}{:>9}{:>8}{:>11}{:>11}{:>11}  recovery p50 / max",
        "journal_mode",
        "synchronous",
        "txns/s",
        "events",
        "crashes",
        "losing",
        "lost (max)",
        "integrity",
        "atomicity"
    );
    for r in reports {
        let get = |k: &str| {
            r.config
                .iter()
                .find(|(key, _)| key == k)
                .map_or("", |(_, v)| v.as_str())
                .to_string()
        };
        let _ = writeln!(
            o,
            "{:<13}{:<12}{:>9}{:>8}{:>9}{:>8}{:>11}{:>11}{:>11}  {} / {}",
            get("journal_mode"),
            get("synchronous"),
            r.txns_per_s.map_or("-".into(), |t| format!("{t:.0}")),
            r.events,
            r.crashes,
            r.crashes_losing_commits,
            format!("{} ({})", r.acknowledged_lost, r.most_lost_at_once),
            r.integrity_failures,
            r.atomicity_violations,
            ns(r.recovery_p50_ns),
            ns(r.recovery_max_ns)
        );
    }
    let findings: Vec<String> = reports
        .iter()
        .filter_map(|r| {
            let f = r.first_finding.as_ref()?;
            let cfg: Vec<String> = r.config.iter().map(|(k, v)| format!("{k}={v}")).collect();
            Some(format!("  {}: {f}", cfg.join(" ")))
        })
        .collect();
    if findings.is_empty() {
        let _ = writeln!(
            o,
            "\nno configuration lost an acknowledged commit or its integrity"
        );
    } else {
        let _ = writeln!(o, "\nfirst finding per configuration:");
        for f in findings {
            let _ = writeln!(o, "{f}");
        }
    }
    if plan.replay.is_some() {
        for r in reports {
            for p in &r.findings {
                let _ = writeln!(
                    o,
                    "\n{}",
                    serde_json::to_string_pretty(p).unwrap_or_default()
                );
            }
        }
    }
    o
}

//! `pocketbench durability`'s flags and the request they make: which engine, which of its
//! configurations (read from the engine's own `OptionSpec`s) and the crash plan. Shared by the
//! command and by studies (`suite = "durability"` in a plan), which read these flags by
//! introspection, so a flag added here is an axis from then on.

use super::killed::Config as KilledConfig;
use super::redb::Config as RedbConfig;
use super::{sqlite::Config, Plan, Subject, Workload, PRELOAD};
use crate::error::{Error, Result};
use crate::limits::escape;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// The engines: power loss where their I/O can be interposed, a process crash elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DurabilityEngine {
    /// SQLite through the crash VFS (power loss).
    Sqlite,
    /// redb through a crash storage backend (power loss).
    Redb,
    /// LMDB killed with SIGKILL (process crash).
    Lmdb,
    /// RocksDB killed with SIGKILL (process crash; builds with the rocksdb feature).
    Rocksdb,
    /// LevelDB killed with SIGKILL (process crash; builds with the leveldb feature).
    Leveldb,
    /// BerkeleyDB (key-value) killed with SIGKILL (process crash; builds with the berkeleydb
    /// feature).
    Berkeleydb,
}

/// The engine options a durability study sweeps, with the values run when `--config` does not
/// name them (`None`: every value the engine's option takes). The values allowed are read from
/// the engine's own option specification.
fn swept(e: DurabilityEngine) -> &'static [(&'static str, Option<&'static [&'static str]>)] {
    match e {
        DurabilityEngine::Sqlite => &[
            ("journal_mode", Some(&["delete", "wal"])),
            ("synchronous", Some(&["off", "normal", "full"])),
        ],
        DurabilityEngine::Redb => &[("durability", None)],
        _ => &[("sync", None)],
    }
}

/// The words engine option `key` of `engine` takes.
fn option_values(engine: &str, key: &str) -> Result<&'static [&'static str]> {
    let spec = crate::engine::descriptor(engine)?
        .options
        .iter()
        .find(|s| s.name == key);
    match spec.map(|s| &s.kind) {
        Some(crate::engine::options::OptionKind::OneOf(values)) => Ok(values),
        _ => Err(Error::failed(format!(
            "engine {engine} has no option {key} with fixed values"
        ))),
    }
}

fn engine_name(e: DurabilityEngine) -> &'static str {
    match e {
        DurabilityEngine::Sqlite => "sqlite",
        DurabilityEngine::Redb => "redb",
        DurabilityEngine::Lmdb => "lmdb",
        DurabilityEngine::Rocksdb => "rocksdb",
        DurabilityEngine::Leveldb => "leveldb",
        DurabilityEngine::Berkeleydb => "berkeleydb",
    }
}
/// Upper bounds of the sizes (docs/limits.md).
const MAX_CRASHES: u64 = 100_000;
const MAX_TXNS: u64 = 10_000;
const MAX_ROWS: u32 = 1_000;

#[derive(Args, Debug)]
pub struct DurabilityArgs {
    /// The engine: SQLite (its I/O interposed by a VFS) and redb (by a storage backend) under
    /// simulated power loss; LMDB, RocksDB, LevelDB and BerkeleyDB killed mid-run (a process
    /// crash, not a power loss).
    #[arg(long, value_enum, default_value = "sqlite")]
    pub engine: DurabilityEngine,
    /// KEY=V[,V…] (repeatable), every combination is run; the values are the engine's own
    /// option's (`pocketbench engines`). SQLite: journal_mode and synchronous, default
    /// journal_mode=delete,wal and synchronous=off,normal,full; redb: durability; LMDB,
    /// RocksDB, LevelDB, BerkeleyDB: sync; default every value.
    #[arg(long = "config", value_name = "KEY=V[,V…]")]
    pub config: Vec<String>,
    /// Power failures per configuration: at every I/O event of the workload and after its
    /// last when that makes no more, else at this many drawn from the seed (at most 100 000).
    #[arg(long, default_value_t = 200)]
    pub crashes: u64,
    /// Transactions in the workload (at most 10 000).
    #[arg(long, default_value_t = DEFAULT_TXNS)]
    pub txns: u64,
    /// Rows each transaction writes (at most 1 000; at most 64 with --workload update).
    #[arg(long, default_value_t = DEFAULT_ROWS_PER_TXN)]
    pub rows_per_txn: u32,
    /// The transactions: append (each inserts rows of its own) or update (each rewrites
    /// preloaded rows in place; SQLite and redb).
    #[arg(long, value_enum, default_value = "append")]
    pub workload: Workload,
    /// Seed of the crash points and, with --torn, of the sectors that survive.
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
    /// Results store.
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Print a stored run (the latest without ID) instead of running.
    #[arg(long, value_name = "ID", num_args = 0..=1, default_missing_value = "0")]
    pub show: Option<i64>,
    /// Print the output as JSON instead of text.
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
fn configs(engine: DurabilityEngine, pairs: &[String]) -> Result<Vec<Box<dyn Subject>>> {
    let name = engine_name(engine);
    let keys: Vec<(&str, &[&str])> = swept(engine)
        .iter()
        .map(|&(key, _)| Ok((key, option_values(name, key)?)))
        .collect::<Result<_>>()?;
    let mut chosen: Vec<Vec<String>> = swept(engine)
        .iter()
        .zip(&keys)
        .map(|(&(_, default), &(_, all))| {
            default
                .unwrap_or(all)
                .iter()
                .map(|v| v.to_string())
                .collect()
        })
        .collect();
    for p in pairs {
        let Some((k, v)) = p.split_once('=') else {
            return Err(Error::input(format!(
                "--config {}: expected KEY=VALUE",
                escape(p)
            )));
        };
        let Some(i) = keys.iter().position(|(key, _)| *key == k.trim()) else {
            let names: Vec<&str> = keys.iter().map(|(key, _)| *key).collect();
            return Err(Error::input(format!(
                "--config {}: unknown key for {} ({})",
                escape(k),
                engine
                    .to_possible_value()
                    .map_or(String::new(), |v| v.get_name().to_string()),
                names.join(", ")
            )));
        };
        chosen[i] = values(keys[i].0, v, keys[i].1)?;
    }
    Ok(match engine {
        DurabilityEngine::Sqlite => chosen[0]
            .iter()
            .flat_map(|m| {
                chosen[1].iter().map(move |s| {
                    Box::new(Config {
                        journal_mode: m.clone(),
                        synchronous: s.clone(),
                    }) as Box<dyn Subject>
                })
            })
            .collect(),
        DurabilityEngine::Redb => chosen[0]
            .iter()
            .map(|d| {
                Box::new(RedbConfig {
                    durability: d.clone(),
                }) as Box<dyn Subject>
            })
            .collect(),
        _ => chosen[0]
            .iter()
            .map(|v| {
                Box::new(KilledConfig {
                    engine: name,
                    options: vec![(keys[0].0.to_string(), v.clone())],
                }) as Box<dyn Subject>
            })
            .collect(),
    })
}

fn bounded<T: PartialOrd + std::fmt::Display>(flag: &str, v: T, lo: T, hi: T) -> Result<T> {
    if v < lo || v > hi {
        return Err(Error::input(format!("{flag} {v}: must be {lo} to {hi}")));
    }
    Ok(v)
}

/// `--txns`'s default.
pub const DEFAULT_TXNS: u64 = 50;
/// `--rows-per-txn`'s default.
pub const DEFAULT_ROWS_PER_TXN: u32 = 3;

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
    let max_rows = match a.workload {
        Workload::Append => MAX_ROWS,
        Workload::Update => PRELOAD as u32,
    };
    if a.workload == Workload::Update
        && !matches!(a.engine, DurabilityEngine::Sqlite | DurabilityEngine::Redb)
    {
        return Err(Error::input(format!(
            "--workload update: {} is tested by killing its process, where every engine commit is one record: that model runs the append workload only (update: --engine sqlite or redb)",
            engine_name(a.engine)
        )));
    }
    Ok(Plan {
        crashes: bounded("--crashes", a.crashes, 1, MAX_CRASHES)?,
        txns: bounded("--txns", a.txns, 1, MAX_TXNS)?,
        rows_per_txn: bounded("--rows-per-txn", a.rows_per_txn, 1, max_rows)?,
        workload: a.workload,
        seed,
        torn: a.torn,
        replay,
        timed: !a.no_speed && replay.is_none(),
    })
}

/// What a durability run will do: the configurations in order, the crash plan, and the
/// directory the scratch databases go in.
pub struct Request {
    pub configs: Vec<Box<dyn Subject>>,
    pub plan: Plan,
    pub parent: PathBuf,
}

impl DurabilityArgs {
    /// Check every flag and build the request. Nothing is created or measured.
    pub fn request(&self) -> Result<Request> {
        let configs = configs(self.engine, &self.config)?;
        let plan = plan(self)?;
        let parent = self.dir.clone().unwrap_or_else(std::env::temp_dir);
        if !parent.is_dir() {
            return Err(Error::input(format!(
                "--dir {}: not a directory",
                escape(&parent.display().to_string())
            )));
        }
        Ok(Request {
            configs,
            plan,
            parent,
        })
    }
}

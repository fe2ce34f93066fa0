//! `pocketbench durability`'s flags and the request they make: which engine, which of its
//! configurations (read from the engine's own `OptionSpec`s) and the crash plan. Shared by the
//! command and by studies (`suite = "durability"` in a plan), which read these flags by
//! introspection, so a flag added here is an axis from then on.

use super::engines::name as engine_name;
pub use super::engines::DurabilityEngine;
use super::fsrec::model::Model;
use super::killed::Config as KilledConfig;
use super::recorded::Config as RecordedConfig;
use super::redb::Config as RedbConfig;
use super::traced::Traced;
use super::{sqlite::Config, Plan, Subject, Workload, PRELOAD};
use crate::error::{Error, Result};
use crate::limits::escape;
use crate::quick;
use clap::{Args, ValueEnum};
use std::path::PathBuf;

/// The engine options a durability study sweeps, with the values run when `--config` does not
/// name them (`None`: every value the engine's option takes). The values allowed are read from
/// the engine's own option specification.
fn swept(e: DurabilityEngine) -> &'static [(&'static str, Option<&'static [&'static str]>)] {
    match e {
        DurabilityEngine::Sqlite => &[
            ("journal_mode", Some(&["delete", "wal"])),
            ("synchronous", Some(&["off", "normal", "full"])),
        ],
        DurabilityEngine::Redb | DurabilityEngine::BdbJe => &[("durability", None)],
        DurabilityEngine::Nitrite => &[("commit", None)],
        DurabilityEngine::SqliteJdbc => &[
            ("journal_mode", Some(&["delete", "wal"])),
            ("synchronous", Some(&["off", "normal", "full"])),
        ],
        // ms before an auto-committed change is written: at once, and H2's default.
        DurabilityEngine::H2 => &[("write_delay", Some(&["0", "500"]))],
        DurabilityEngine::Objectbox => &[],
        _ => &[("sync", None)],
    }
}

/// The words engine option `key` of `engine` takes: `Some` for an option with fixed values,
/// `None` for one taking a number (checked by the engine's option specification).
fn option_values(engine: &str, key: &str) -> Result<Option<&'static [&'static str]>> {
    let spec = crate::engine::descriptor(engine)?
        .options
        .iter()
        .find(|s| s.name == key);
    match spec.map(|s| &s.kind) {
        Some(crate::engine::options::OptionKind::OneOf(values)) => Ok(Some(values)),
        Some(_) => Ok(None),
        None => Err(Error::failed(format!(
            "engine {engine} has no option {key}"
        ))),
    }
}

/// How the failure is simulated (`--model`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum FailureModel {
    /// SQLite's crash VFS or redb's crash backend, in-process (the default for those two).
    Vfs,
    /// The workload process killed with SIGKILL: crash consistency, not power loss.
    ProcessCrash,
    /// Power loss from a recording of the file-system calls: only synced data and entries
    /// synced by a directory fsync survive (the default for the other engines).
    Strict,
    /// Power loss on ext4 with data=ordered (journal order, auto_da_alloc).
    Ext4Ordered,
    /// Power loss on F2FS with fsync_mode=posix (Android's default).
    F2fsPosix,
    /// Power loss on F2FS with fsync_mode=strict.
    F2fsStrict,
}

impl FailureModel {
    /// The persistence model of a recorded model (`None` for the others, and in a build
    /// without the recorder, feature `recorded-models`, where [`DurabilityArgs::request`]
    /// refuses them).
    fn recorded(self) -> Option<Model> {
        if !super::recorded::AVAILABLE {
            return None;
        }
        match self {
            FailureModel::Vfs | FailureModel::ProcessCrash => None,
            FailureModel::Strict => Some(Model::Strict),
            FailureModel::Ext4Ordered => Some(Model::Ext4Ordered),
            FailureModel::F2fsPosix => Some(Model::F2fsPosix),
            FailureModel::F2fsStrict => Some(Model::F2fsStrict),
        }
    }
}

/// Upper bounds of the sizes (docs/limits.md).
const MAX_CRASHES: u64 = 100_000;
const MAX_TXNS: u64 = 10_000;
const MAX_ROWS: u32 = 1_000;
const MAX_STATES: u64 = 1_000;

#[derive(Args, Debug)]
pub struct DurabilityArgs {
    /// The engine: SQLite (its I/O interposed by a VFS) and redb (by a storage backend) under
    /// simulated power loss; LMDB, RocksDB, LevelDB, BerkeleyDB and the JVM engines (h2,
    /// bdb-je, sqlite-jdbc, nitrite, objectbox) in a child process, under power loss from a
    /// recording of its file-system calls or killed mid-run (--model).
    #[arg(long, value_enum, default_value = "sqlite")]
    pub engine: DurabilityEngine,
    /// KEY=V[,V…] (repeatable), every combination is run; the values are the engine's own
    /// option's (`pocketbench engines`). SQLite: journal_mode and synchronous, default
    /// journal_mode=delete,wal and synchronous=off,normal,full (sqlite-jdbc too); redb and
    /// bdb-je: durability; h2: write_delay, default 0,500; nitrite: commit; LMDB, RocksDB,
    /// LevelDB, BerkeleyDB: sync; default every value; objectbox takes none.
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
    /// The transactions: append (each inserts rows of its own), update (each rewrites
    /// preloaded rows in place; SQLite and redb), or any workload `run --workload` accepts
    /// (ycsb-a, pocketdata-a, a workload file) or a trace file (.pbt), whose first --txns
    /// operations are the workload (process-crash and the recorded models).
    #[arg(long, value_name = "W", default_value = "append")]
    pub workload: String,
    /// Seed of the crash points and, with --torn, of the sectors that survive.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// How the failure is simulated: vfs (SQLite, redb: in-process, the default for them),
    /// process-crash, or power loss from a recording of the file-system calls under a
    /// persistence model: strict (the default for the other engines), ext4-ordered,
    /// f2fs-posix, f2fs-strict.
    #[arg(long, value_enum)]
    pub model: Option<FailureModel>,
    /// Crash states per crash point under a recorded model, at most: every state when the
    /// model allows no more, else this many drawn from the seed (at most 1 000).
    #[arg(long, default_value_t = 4)]
    pub states: u64,
    /// With --replay-crash under a recorded model: also write the crash state as this
    /// directory, to open by hand (a new or empty folder, or one an earlier --replay-dir
    /// filled; any other folder is refused).
    #[arg(long, value_name = "DIR")]
    pub replay_dir: Option<PathBuf>,
    /// Torn writes: a random half of the unsynced 512-byte sectors survive the failure
    /// (default: none do).
    #[arg(long)]
    pub torn: bool,
    /// Replay one power failure: the seed, crash point and (recorded models) state a
    /// finding printed.
    #[arg(long, value_name = "SEED:POINT[/STATE]")]
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

/// The values of `--config key=text` for `engine`: each one of `allowed`, or (`None`) each one
/// the engine's option specification accepts.
fn values(engine: &str, key: &str, text: &str, allowed: Option<&[&str]>) -> Result<Vec<String>> {
    text.split(',')
        .map(|v| {
            let v = v.trim().to_ascii_lowercase();
            let Some(allowed) = allowed else {
                let d = crate::engine::descriptor(engine)?;
                crate::engine::options::EngineOptions::validate(
                    engine,
                    d.options,
                    &[(key.to_string(), v.clone())],
                )
                .map_err(|e| {
                    // The option's own complaint, without `run`'s `-o KEY=V: engine E:` lead.
                    let text = e.to_string();
                    let why = text.rsplit(": ").next().unwrap_or(&text).to_string();
                    Error::input(format!("--config {key}: {}: {why}", escape(&v)))
                })?;
                return Ok(v);
            };
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
fn configs(
    engine: DurabilityEngine,
    pairs: &[String],
    model: FailureModel,
    trace: Option<&Traced>,
) -> Result<Vec<Box<dyn Subject>>> {
    let name = engine_name(engine);
    let keys: Vec<(&str, Option<&[&str]>)> = swept(engine)
        .iter()
        .map(|&(key, _)| Ok((key, option_values(name, key)?)))
        .collect::<Result<_>>()?;
    let mut chosen: Vec<Vec<String>> = swept(engine)
        .iter()
        .zip(&keys)
        .map(|(&(_, default), &(_, all))| {
            default
                .or(all)
                .unwrap_or_default()
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
            let mut names: Vec<&str> = keys.iter().map(|(key, _)| *key).collect();
            if names.is_empty() {
                names.push("it takes none: its settings are the library's defaults");
            }
            return Err(Error::input(format!(
                "--config {}: unknown key for {} ({})",
                escape(k),
                engine
                    .to_possible_value()
                    .map_or(String::new(), |v| v.get_name().to_string()),
                names.join(", ")
            )));
        };
        chosen[i] = values(name, keys[i].0, v, keys[i].1)?;
    }
    if model != FailureModel::Vfs {
        let mut combos: Vec<Vec<(String, String)>> = vec![vec![]];
        for (i, (key, _)) in keys.iter().enumerate() {
            combos = combos
                .into_iter()
                .flat_map(|c| {
                    chosen[i].iter().map(move |v| {
                        let mut c = c.clone();
                        c.push((key.to_string(), v.clone()));
                        c
                    })
                })
                .collect();
        }
        return Ok(combos
            .into_iter()
            .map(|options| match model.recorded() {
                Some(m) => Box::new(RecordedConfig::new(name, options, trace.cloned(), m))
                    as Box<dyn Subject>,
                None => Box::new(KilledConfig {
                    engine: name,
                    options,
                    trace: trace.cloned(),
                    start_us: Default::default(),
                }),
            })
            .collect());
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
        _ => unreachable!("engines other than sqlite and redb have no in-process model"),
    })
}

/// The failure model asked for, or the default: `vfs` for SQLite and redb running their own
/// transactions, else `strict`.
fn model(a: &DurabilityArgs) -> FailureModel {
    a.model.unwrap_or(match (a.engine, builtin(&a.workload)) {
        (DurabilityEngine::Sqlite | DurabilityEngine::Redb, Some(_)) => FailureModel::Vfs,
        _ => FailureModel::Strict,
    })
}

/// The built-in transactions `--workload` names (`append`, `update`), or `None`: a workload
/// or trace to resolve.
fn builtin(w: &str) -> Option<Workload> {
    Workload::from_str(w, true).ok()
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

fn plan(a: &DurabilityArgs, trace: Option<&Traced>) -> Result<Plan> {
    let (seed, replay) = match &a.replay_crash {
        None => (a.seed, None),
        Some(text) => {
            let parsed = text.split_once(':').and_then(|(s, p)| {
                let (p, state) = p.split_once('/').unwrap_or((p, "0"));
                Some((
                    s.trim().parse().ok()?,
                    p.trim().parse().ok()?,
                    state.trim().parse().ok()?,
                ))
            });
            let Some((seed, point, state)) = parsed.filter(|&(_, p, _): &(u64, u64, u64)| p >= 1)
            else {
                return Err(Error::input(format!(
                    "--replay-crash {}: expected SEED:POINT[/STATE] (POINT from 1)",
                    escape(text)
                )));
            };
            (seed, Some((point, state)))
        }
    };
    let workload = builtin(&a.workload).unwrap_or_default();
    let max_rows = match workload {
        Workload::Append => MAX_ROWS,
        Workload::Update => PRELOAD as u32,
    };
    if trace.is_some() && model(a).recorded().is_none() && model(a) != FailureModel::ProcessCrash {
        return Err(Error::input(format!(
            "--workload {}: a trace runs in a child process: --model process-crash or a recorded model (strict, ext4-ordered, f2fs-posix, f2fs-strict), not vfs",
            escape(&a.workload)
        )));
    }
    if workload == Workload::Update && model(a) != FailureModel::Vfs {
        return Err(Error::input(format!(
            "--workload update: {} runs through the engine's key-value interface, where every engine commit is one record: that runs the append workload only (update: --engine sqlite or redb with --model vfs)",
            engine_name(a.engine)
        )));
    }
    if (a.engine == DurabilityEngine::Sqlite || super::jvm::is_jvm(engine_name(a.engine)))
        && trace.is_none()
        && model(a) != FailureModel::Vfs
        && a.rows_per_txn > PRELOAD as u32
    {
        return Err(Error::input(format!(
            "--rows-per-txn {}: {} through the key-value interface has {PRELOAD} fields (at most {PRELOAD} rows per transaction)",
            a.rows_per_txn,
            engine_name(a.engine)
        )));
    }
    if a.replay_dir.is_some() && (replay.is_none() || model(a).recorded().is_none()) {
        return Err(Error::input(
            "--replay-dir: needs --replay-crash and a recorded model (strict, ext4-ordered, f2fs-posix, f2fs-strict)",
        ));
    }
    if let Some(d) = &a.replay_dir {
        crate::output::folder::check(d, "--replay-dir")?;
    }
    Ok(Plan {
        crashes: quick::cap(
            "--crashes",
            bounded("--crashes", a.crashes, 1, MAX_CRASHES)?,
            quick::CRASHES,
        ),
        txns: quick::cap(
            "--txns",
            bounded("--txns", a.txns, 1, MAX_TXNS)?,
            quick::DURABILITY_TXNS,
        ),
        rows_per_txn: bounded("--rows-per-txn", a.rows_per_txn, 1, max_rows)?,
        workload,
        trace: trace.map(|t| t.name.clone()),
        seed,
        torn: a.torn,
        replay: replay.map(|(p, _)| p),
        replay_state: replay.map_or(0, |(_, s)| s),
        replay_dir: a.replay_dir.clone(),
        states: bounded("--states", a.states, 1, MAX_STATES)?,
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
        let m = model(self);
        if !super::recorded::AVAILABLE
            && !matches!(m, FailureModel::Vfs | FailureModel::ProcessCrash)
        {
            let name = m
                .to_possible_value()
                .map_or(String::new(), |v| v.get_name().to_string());
            let default = if self.model.is_none() {
                format!(" (the default for {})", engine_name(self.engine))
            } else {
                String::new()
            };
            let refused = Error::not_built(
                format!("--model {name}{default}"),
                "recorded-models",
                "file-system recorder for the recorded power-loss models",
            );
            return Err(Error::input(format!(
                "{refused}, or use --model process-crash here"
            )));
        }
        if m == FailureModel::Vfs
            && !matches!(
                self.engine,
                DurabilityEngine::Sqlite | DurabilityEngine::Redb
            )
        {
            return Err(Error::input(format!(
                "--model vfs: only sqlite and redb run in-process ({} takes process-crash or a recorded model)",
                engine_name(self.engine)
            )));
        }
        let jvm = super::jvm::is_jvm(engine_name(self.engine));
        if jvm && builtin(&self.workload).is_none() {
            return Err(Error::input(format!(
                "--workload {}: the JVM engines run the append workload only under durability (a trace or YCSB workload: a native engine)",
                escape(&self.workload)
            )));
        }
        let trace = match builtin(&self.workload) {
            Some(_) => None,
            None => Some(Traced::resolve(&self.workload, self.seed)?),
        };
        if let Some(t) = &trace {
            crate::engine::check(engine_name(self.engine), &[], &t.model)?;
        }
        let configs = configs(self.engine, &self.config, m, trace.as_ref())?;
        let plan = plan(self, trace.as_ref())?;
        if jvm {
            super::jvm::available()?;
        }
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

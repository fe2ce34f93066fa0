//! Engines: one trait ([`Engine`]), one file per engine, and the registry that maps a name and
//! `-o key=value` options to an open engine. Adding an engine is one file implementing the
//! trait and one line in [`REGISTRY`].

#[cfg(feature = "berkeleydb")]
pub mod berkeleydb;
pub mod io;
pub mod jvm;
pub mod kv;
#[cfg(feature = "leveldb")]
pub mod leveldb;
pub mod lmdb;
#[cfg(any(feature = "rocksdb", feature = "leveldb"))]
pub mod lsm;
pub mod null;
pub mod options;
pub mod redb;
#[cfg(feature = "rocksdb")]
pub mod rocksdb;
pub mod sqlite;
pub mod syncs;
pub mod threadio;

use crate::error::{Error, Result};
use crate::workload::model::DataModel;
use crate::workload::op::Op;
use io::{IoCounters, IoStats};
use options::{EngineOptions, OptionSpec};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// One operation ready to execute: the trace operation plus its key text and field values,
/// materialised by the replayer before the clock starts.
pub struct Request<'a> {
    pub op: &'a Op,
    /// Key text for key-value operations (empty for SQL).
    pub key: &'a [u8],
    /// Field values, indexed by field number; only the fields the operation writes are filled.
    pub values: &'a [Vec<u8>],
    /// Keep a copy of a point read's record for [`Engine::last_read`] (the replay's
    /// read-your-writes check wants it). Engines that copy the record out anyway may ignore it.
    pub keep_read: bool,
}

/// What an operation returned.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// Rows (records) read or changed.
    pub rows: u64,
}

/// What the last point read of an operation returned, for the replayer's read-your-writes
/// check (done after the operation's end timestamp).
pub enum LastRead<'a> {
    /// The engine keeps nothing to check, or the operation read nothing.
    Unsupported,
    /// The key had no record.
    NotFound,
    /// The record's fields, encoded as [`kv::encode_record`] does.
    Record(&'a [u8]),
}

/// An engine counter read before and after a run (see [`Engine::stats`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct StatChange {
    pub before: u64,
    pub after: u64,
}

impl StatChange {
    /// Pair up the counters of two readings (a counter missing from one reads as 0).
    pub fn between(
        before: std::collections::BTreeMap<String, u64>,
        after: std::collections::BTreeMap<String, u64>,
    ) -> std::collections::BTreeMap<String, StatChange> {
        let mut out: std::collections::BTreeMap<String, StatChange> = before
            .into_iter()
            .map(|(k, before)| (k, StatChange { before, after: 0 }))
            .collect();
        for (k, after) in after {
            out.entry(k).or_default().after = after;
        }
        out
    }

    /// How much the counter grew during the run (0 if it shrank: a gauge).
    pub fn delta(&self) -> u64 {
        self.after.saturating_sub(self.before)
    }
}

/// Name, version and effective options of an open engine, for the result's environment.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct EngineInfo {
    pub name: String,
    pub version: String,
    pub options: std::collections::BTreeMap<String, String>,
    /// How per-operation I/O is measured for this engine.
    pub io_method: String,
}

pub trait Engine {
    fn info(&self) -> EngineInfo;

    /// Create what the data model needs (the YCSB table for key-value workloads).
    fn create_schema(&mut self, model: &DataModel) -> Result<()>;

    /// Start and end the bulk load of the load phase (one transaction where supported).
    fn begin_load(&mut self) -> Result<()>;
    fn end_load(&mut self) -> Result<()>;

    /// Execute one operation. Errors are the engine's message; the replayer counts them.
    fn execute(&mut self, req: &Request<'_>) -> std::result::Result<Outcome, String>;

    /// Cumulative I/O counters of this engine on the calling thread.
    fn io(&self) -> IoCounters {
        io::thread_counters()
    }

    /// [`Engine::io`] summed over file kinds: what the replay snapshots around every
    /// operation. An engine on the default [`Engine::io`] overrides it with
    /// [`io::thread_total`], which costs one copy instead of a sum.
    fn io_total(&self) -> IoStats {
        self.io().total()
    }

    /// The record the last operation's point read returned (read, read-modify-write).
    fn last_read(&self) -> LastRead<'_> {
        LastRead::Unsupported
    }

    /// Engine-internal counters (compactions, write stalls, …), read before and after the run
    /// and reported in the summary. Empty for engines that have none.
    fn stats(&self) -> std::collections::BTreeMap<String, u64> {
        Default::default()
    }

    /// The key-value records from key `start` on in one pass in key order, each handed to
    /// `visit` as (key, record as [`Engine::last_read`] gives one); how many. `None` where the
    /// engine has no such pass (the caller reads record by record).
    fn scan_records(
        &mut self,
        start: &[u8],
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> Option<std::result::Result<u64, String>> {
        if let Some(store) = self.as_kv() {
            return Some(store.scan(start, u32::MAX, visit));
        }
        self.as_sql()?.scan_records(start, visit)
    }

    /// The key-value store under a key-value engine (the data-model study writes its own
    /// keys through it); `None` for the others.
    fn as_kv(&mut self) -> Option<&mut dyn kv::KvStore> {
        None
    }

    /// The SQL session under an engine that speaks SQLite's C API (BerkeleyDB's SQL front
    /// end): the data-model study runs its own statements through it; `None` for the others.
    fn as_sql(&mut self) -> Option<&mut sqlite::session::SqlSession> {
        None
    }
}

/// How to open one engine, and what it accepts.
pub struct EngineDescriptor {
    pub name: &'static str,
    pub summary: &'static str,
    pub options: &'static [OptionSpec],
    /// Data models it can run.
    pub supports_sql: bool,
    pub open: fn(dir: &Path, options: &EngineOptions) -> Result<Box<dyn Engine>>,
    pub version: fn() -> String,
}

/// Every engine pocketbench knows.
pub const REGISTRY: &[&EngineDescriptor] = &[
    &sqlite::DESCRIPTOR,
    &null::DESCRIPTOR,
    &lmdb::DESCRIPTOR,
    &redb::DESCRIPTOR,
    &jvm::H2,
    &jvm::BDB_JE,
    &jvm::SQLITE_JDBC,
    &jvm::NITRITE,
    &jvm::OBJECTBOX,
    #[cfg(feature = "berkeleydb")]
    &berkeleydb::DESCRIPTOR,
    #[cfg(feature = "berkeleydb")]
    &berkeleydb::sql::DESCRIPTOR,
    #[cfg(feature = "rocksdb")]
    &rocksdb::DESCRIPTOR,
    #[cfg(feature = "leveldb")]
    &leveldb::DESCRIPTOR,
];

/// Engines behind cargo features, and the feature that builds each.
const FEATURE_ENGINES: &[(&str, &str)] = &[
    ("berkeleydb", "berkeleydb"),
    ("berkeleydb-sql", "berkeleydb"),
    ("rocksdb", "rocksdb"),
    ("leveldb", "leveldb"),
];

pub fn descriptor(name: &str) -> Result<&'static EngineDescriptor> {
    REGISTRY
        .iter()
        .copied()
        .find(|d| d.name == name)
        .ok_or_else(|| {
            let names: Vec<&str> = REGISTRY.iter().map(|d| d.name).collect();
            if let Some((_, feature)) = FEATURE_ENGINES.iter().find(|(n, _)| *n == name) {
                return Error::input(format!(
                    "--engine {name}: not in this build (rebuild with `cargo build --features {feature}`; available: {})",
                    names.join(", ")
                ));
            }
            let known = names.iter().copied().chain(FEATURE_ENGINES.iter().map(|(n, _)| *n));
            let hint = crate::limits::did_you_mean(name, known);
            Error::input(format!(
                "--engine: unknown engine {}{hint} (available: {})",
                crate::limits::escape(name),
                names.join(", ")
            ))
        })
}

/// Open engine `name` with its data in `dir`, validating `options` against its descriptor.
pub fn open(name: &str, raw_options: &[(String, String)], dir: &Path) -> Result<Box<dyn Engine>> {
    let d = descriptor(name)?;
    let options = EngineOptions::validate(d.name, d.options, raw_options)?;
    (d.open)(dir, &options)
}

/// Check that `name` exists, its options are valid, and it can run `model`.
pub fn check(name: &str, raw_options: &[(String, String)], model: &DataModel) -> Result<()> {
    let d = descriptor(name)?;
    EngineOptions::validate(d.name, d.options, raw_options)?;
    if matches!(model, DataModel::Sql) && !d.supports_sql {
        let sql: Vec<&str> = REGISTRY
            .iter()
            .filter(|d| d.supports_sql)
            .map(|d| d.name)
            .collect();
        return Err(Error::input(format!(
            "--engine {name}: this workload is SQL and {name} is a key-value engine (SQL engines: {})",
            sql.join(", ")
        )));
    }
    Ok(())
}

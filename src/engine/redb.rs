//! redb (pure Rust copy-on-write B-tree): one database file, one table, every write its own
//! write transaction at the chosen durability, reads in a fresh read transaction.
//!
//! I/O is measured exactly, like SQLite's VFS shim: the database runs on a storage backend
//! that wraps redb's own file backend and accounts every read, write, sync and resize (count,
//! bytes, time blocked) to the calling thread's I/O counters. redb does all its I/O on the
//! calling thread, so every I/O lands on the operation that caused it.

use super::io::{self, FileKind, IoStats};
use super::kv::{self, KvStore};
use super::options::{EngineOptions, OptionKind, OptionSpec};
use super::{Engine, EngineDescriptor};
use crate::error::{Error, Result, ResultExt};
use crate::platform::clock::mono_ns;
use redb::backends::FileBackend;
use redb::{
    Database, Durability, ReadableTable, StorageBackend, TableDefinition, WriteTransaction,
};
use std::path::Path;

pub const DESCRIPTOR: EngineDescriptor = EngineDescriptor {
    name: "redb",
    summary: "redb (pure Rust B-tree), I/O measured per operation by a storage-backend shim",
    options: SPECS,
    supports_sql: false,
    open,
    version,
};

const SPECS: &[OptionSpec] = &[
    OptionSpec { name: "durability", default: "immediate", help: "none: commit in memory only (made durable by a later durable commit); eventual: synced with a write barrier where the OS has one (macOS), a full fdatasync elsewhere; immediate: synced at commit; paranoid: immediate with two-phase commit", kind: OptionKind::OneOf(&["none", "eventual", "immediate", "paranoid"]) },
    OptionSpec { name: "cache_size", default: "1073741824", help: "bytes of redb's page cache", kind: OptionKind::Bytes { min: 0, max: 1 << 40 } },
];

const TABLE: TableDefinition<&[u8], &[u8]> = TableDefinition::new("usertable");

/// File name of the database inside the engine's directory.
pub const DB_FILE: &str = "pocketbench.redb";

pub fn version() -> String {
    option_env!("POCKETBENCH_REDB_VERSION")
        .unwrap_or("unknown")
        .to_string()
}

/// redb's file backend, with every call counted on the calling thread.
#[derive(Debug)]
struct CountingBackend(FileBackend);

fn timed<T>(f: impl FnOnce() -> T, account: impl FnOnce(&mut IoStats, u64)) -> T {
    let t0 = mono_ns();
    let out = f();
    let ns = mono_ns().saturating_sub(t0);
    io::record(FileKind::Main, |s| account(s, ns));
    out
}

impl StorageBackend for CountingBackend {
    fn len(&self) -> std::result::Result<u64, std::io::Error> {
        self.0.len()
    }

    fn read(&self, offset: u64, len: usize) -> std::result::Result<Vec<u8>, std::io::Error> {
        timed(
            || self.0.read(offset, len),
            |s, ns| s.add_read(len as u64, ns),
        )
    }

    fn set_len(&self, len: u64) -> std::result::Result<(), std::io::Error> {
        timed(|| self.0.set_len(len), |s, ns| s.add_truncate(ns))
    }

    fn sync_data(&self, eventual: bool) -> std::result::Result<(), std::io::Error> {
        timed(|| self.0.sync_data(eventual), |s, ns| s.add_sync(ns))
    }

    fn write(&self, offset: u64, data: &[u8]) -> std::result::Result<(), std::io::Error> {
        timed(
            || self.0.write(offset, data),
            |s, ns| s.add_write(data.len() as u64, ns),
        )
    }
}

pub struct Redb {
    db: Database,
    durability: Durability,
    two_phase: bool,
    bulk: Option<WriteTransaction>,
}

fn open(dir: &Path, options: &EngineOptions) -> Result<Box<dyn Engine>> {
    let path = dir.join(DB_FILE);
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .run_err(format!("redb: {}", path.display()))?;
    let backend = CountingBackend(FileBackend::new(file).run_err("redb: file backend")?);
    let cache = kv::option_usize(options, "cache_size", 1 << 30)?;
    let db = Database::builder()
        .set_cache_size(cache)
        .create_with_backend(backend)
        .run_err(format!("redb: {}", path.display()))?;
    #[allow(deprecated)] // Paranoid is spelled as two-phase commit below.
    let (durability, two_phase) = match options.get("durability") {
        Some("none") => (Durability::None, false),
        Some("eventual") => (Durability::Eventual, false),
        Some("paranoid") => (Durability::Immediate, true),
        _ => (Durability::Immediate, false),
    };
    let mut store = Redb {
        db,
        durability,
        two_phase,
        bulk: None,
    };
    // Create the table so that reads on an empty database find it.
    store.begin_bulk()?;
    store.end_bulk()?;
    Ok(kv::engine(&DESCRIPTOR, store, options, "storage-backend shim around redb's file backend (read/write/sync_data/set_len per operation, with time)"))
}

fn e(what: &str) -> impl Fn(redb::Error) -> String + '_ {
    move |err| format!("redb: {what}: {err}")
}

impl Redb {
    fn write_txn(&self) -> std::result::Result<WriteTransaction, String> {
        let mut t = self
            .db
            .begin_write()
            .map_err(|x| e("begin_write")(x.into()))?;
        t.set_durability(self.durability);
        t.set_two_phase_commit(self.two_phase);
        Ok(t)
    }
}

/// Copy the value of `key` from `table` into `out`.
fn copy_value(
    table: &impl ReadableTable<&'static [u8], &'static [u8]>,
    key: &[u8],
    out: &mut Vec<u8>,
) -> std::result::Result<bool, String> {
    match table.get(key).map_err(|x| e("get")(x.into()))? {
        Some(g) => {
            out.clear();
            out.extend_from_slice(g.value());
            Ok(true)
        }
        None => Ok(false),
    }
}

impl KvStore for Redb {
    fn get(&mut self, key: &[u8], out: &mut Vec<u8>) -> std::result::Result<bool, String> {
        if let Some(t) = &self.bulk {
            let table = t.open_table(TABLE).map_err(|x| e("open_table")(x.into()))?;
            return copy_value(&table, key, out);
        }
        let t = self
            .db
            .begin_read()
            .map_err(|x| e("begin_read")(x.into()))?;
        let table = t.open_table(TABLE).map_err(|x| e("open_table")(x.into()))?;
        copy_value(&table, key, out)
    }

    fn put(&mut self, key: &[u8], value: &[u8]) -> std::result::Result<(), String> {
        if let Some(t) = &self.bulk {
            let mut table = t.open_table(TABLE).map_err(|x| e("open_table")(x.into()))?;
            table
                .insert(key, value)
                .map_err(|x| e("insert")(x.into()))?;
            return Ok(());
        }
        let t = self.write_txn()?;
        {
            let mut table = t.open_table(TABLE).map_err(|x| e("open_table")(x.into()))?;
            table
                .insert(key, value)
                .map_err(|x| e("insert")(x.into()))?;
        }
        t.commit().map_err(|x| e("commit")(x.into()))
    }

    fn scan(
        &mut self,
        start: &[u8],
        len: u32,
        visit: &mut dyn FnMut(&[u8], &[u8]),
    ) -> std::result::Result<u64, String> {
        let t = self
            .db
            .begin_read()
            .map_err(|x| e("begin_read")(x.into()))?;
        let table = t.open_table(TABLE).map_err(|x| e("open_table")(x.into()))?;
        let mut n = 0u64;
        for item in table
            .range(start..)
            .map_err(|x| e("range")(x.into()))?
            .take(len as usize)
        {
            let (k, v) = item.map_err(|x| e("range")(x.into()))?;
            visit(k.value(), v.value());
            n += 1;
        }
        Ok(n)
    }

    fn begin_bulk(&mut self) -> Result<()> {
        let t = self.write_txn().map_err(Error::failed)?;
        t.open_table(TABLE)
            .map_err(|x| Error::failed(e("open_table")(x.into())))?;
        self.bulk = Some(t);
        Ok(())
    }

    fn end_bulk(&mut self) -> Result<()> {
        match self.bulk.take() {
            Some(t) => {
                // The load is always made durable, whatever the run's durability.
                let mut t = t;
                t.set_durability(Durability::Immediate);
                t.commit().map_err(|x| Error::failed(e("commit")(x.into())))
            }
            None => Ok(()),
        }
    }

    fn io(&self) -> io::IoCounters {
        io::thread_counters()
    }
}

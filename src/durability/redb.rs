//! redb under simulated power loss: the same transaction workload as SQLite's (keys
//! `t{txn}-{part}` in one table, a `counter` key set to the transaction), every transaction one
//! write transaction at the chosen durability, on a storage backend that plays the volatile
//! cache ([`super::volatile`]): writes and resizes stay in memory until `sync_data`, which
//! moves them to the real file. The power fails at a numbered backend call (write, resize,
//! sync); recovery is redb's own (`Database::create` repairs an unclean file) followed by
//! `check_integrity` and a full read.

use super::sqlite::{read_acks, ACKS};
use super::volatile::{Change, Volatile};
use super::{
    is_payload, judge, last_writer, parts, payload, ByTxn, Plan, PointResult, Subject, Workload,
    PRELOAD,
};
use crate::error::{Error, Result, ResultExt};
use crate::platform::clock::mono_ns;
use redb::backends::FileBackend;
use redb::{Database, Durability, ReadableTable, StorageBackend, TableDefinition};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

const TABLE: TableDefinition<&[u8], &[u8]> = TableDefinition::new("log");
const BASE: &str = "base.redb";
const DB: &str = "durability.redb";
const COUNTER: &[u8] = b"counter";

/// One redb configuration: its `durability` option as the engine takes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub durability: String,
}

impl Config {
    fn durability(&self) -> (Durability, bool) {
        #[allow(deprecated)] // Paranoid is spelled as two-phase commit, as the engine does.
        match self.durability.as_str() {
            "none" => (Durability::None, false),
            "eventual" => (Durability::Eventual, false),
            "paranoid" => (Durability::Immediate, true),
            _ => (Durability::Immediate, false),
        }
    }
}

fn key(txn: u64, part: u64) -> Vec<u8> {
    format!("t{txn:08}-{part:04}").into_bytes()
}

/// The simulated device under one redb file.
#[derive(Default)]
struct Device {
    volatile: Mutex<Volatile>,
    events: AtomicU64,
    crash_at: u64,
}

impl Device {
    fn failed(&self) -> bool {
        self.events.load(Ordering::Relaxed) >= self.crash_at
    }

    fn event(&self) -> std::io::Result<()> {
        let n = self.events.fetch_add(1, Ordering::Relaxed) + 1;
        if n >= self.crash_at {
            return Err(std::io::Error::other("simulated power failure"));
        }
        Ok(())
    }

    fn volatile(&self) -> std::sync::MutexGuard<'_, Volatile> {
        self.volatile.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[derive(Debug)]
struct CrashBackend {
    real: FileBackend,
    device: Arc<Device>,
}

impl std::fmt::Debug for Device {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Device(events {})", self.events.load(Ordering::Relaxed))
    }
}

fn gone() -> std::io::Error {
    std::io::Error::other("simulated power failure")
}

impl StorageBackend for CrashBackend {
    fn len(&self) -> std::io::Result<u64> {
        if self.device.failed() {
            return Err(gone());
        }
        let real = self.real.len()?;
        Ok(self.device.volatile().size(real))
    }

    fn read(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        if self.device.failed() {
            return Err(gone());
        }
        let real = self.real.len()?;
        let mut out = if offset < real {
            let n = len.min((real - offset) as usize);
            let mut v = self.real.read(offset, n)?;
            v.resize(len, 0);
            v
        } else {
            vec![0; len]
        };
        self.device.volatile().overlay(real, offset, &mut out);
        Ok(out)
    }

    fn set_len(&self, len: u64) -> std::io::Result<()> {
        self.device.event()?;
        self.device.volatile().changes.push(Change::Truncate(len));
        Ok(())
    }

    fn sync_data(&self, _eventual: bool) -> std::io::Result<()> {
        self.device.event()?;
        let changes = std::mem::take(&mut self.device.volatile().changes);
        for change in changes {
            match change {
                Change::Write { off, data } => self.real.write(off, &data)?,
                Change::Truncate(size) => self.real.set_len(size)?,
            }
        }
        Ok(())
    }

    fn write(&self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        self.device.event()?;
        self.device.volatile().changes.push(Change::Write {
            off: offset,
            data: data.to_vec(),
        });
        Ok(())
    }
}

fn open_file(path: &Path) -> Result<std::fs::File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .run_err(format!("redb: {}", path.display()))
}

fn transaction(
    db: &Database,
    cfg: &Config,
    plan: &Plan,
    txn: u64,
) -> std::result::Result<(), String> {
    let rows = u64::from(plan.rows_per_txn);
    let (durability, two_phase) = cfg.durability();
    let mut t = db.begin_write().map_err(|e| e.to_string())?;
    t.set_durability(durability);
    t.set_two_phase_commit(two_phase);
    {
        let mut table = t.open_table(TABLE).map_err(|e| e.to_string())?;
        for part in parts(plan.workload, txn, rows) {
            if plan.workload == Workload::Update {
                let before = key(last_writer(part, txn - 1, rows), part);
                if table
                    .remove(before.as_slice())
                    .map_err(|e| e.to_string())?
                    .is_none()
                {
                    return Err(format!(
                        "row {} to rewrite is missing",
                        String::from_utf8_lossy(&before)
                    ));
                }
            }
            table
                .insert(key(txn, part).as_slice(), payload(txn, part).as_slice())
                .map_err(|e| e.to_string())?;
        }
        table
            .insert(COUNTER, txn.to_le_bytes().as_slice())
            .map_err(|e| e.to_string())?;
    }
    t.commit().map_err(|e| e.to_string())
}

fn fresh_copy(dir: &Path) -> Result<PathBuf> {
    let db = dir.join(DB);
    let _ = std::fs::remove_file(&db);
    let _ = std::fs::remove_file(dir.join(ACKS));
    std::fs::copy(dir.join(BASE), &db).run_err("copying the redb base")?;
    Ok(db)
}

/// Run the workload on `device` until it ends or fails; the transaction in flight, if any.
fn run_until_failure(
    db_path: &Path,
    dir: &Path,
    device: &Arc<Device>,
    cfg: &Config,
    plan: &Plan,
) -> Result<Option<u64>> {
    let what = "the durability workload";
    let mut acks = std::fs::File::create(dir.join(ACKS)).run_err(what)?;
    let backend = CrashBackend {
        real: FileBackend::new(open_file(db_path)?).run_err(what)?,
        device: Arc::clone(device),
    };
    let mut in_flight = None;
    if let Ok(db) = Database::builder().create_with_backend(backend) {
        for txn in 1..=plan.txns {
            match transaction(&db, cfg, plan, txn) {
                Ok(()) => writeln!(acks, "{txn}").run_err(what)?,
                Err(_) => {
                    in_flight = Some(txn);
                    break;
                }
            }
        }
    }
    acks.sync_data().run_err(what)?;
    Ok(in_flight)
}

impl Subject for Config {
    fn engine(&self) -> &'static str {
        "redb"
    }

    fn config(&self) -> Vec<(String, String)> {
        vec![("durability".into(), self.durability.clone())]
    }

    fn model(&self, torn: bool) -> String {
        if torn {
            "power loss, torn: a random half of the unsynced 512-byte sectors survive (redb storage backend)"
        } else {
            "power loss: every write not synced is lost (redb storage backend)"
        }
        .into()
    }

    fn prepare(&self, dir: &Path) -> Result<()> {
        let path = dir.join(BASE);
        let what = format!("preparing {}", path.display());
        let db = Database::create(&path).run_err(&what)?;
        let t = db.begin_write().run_err(&what)?;
        {
            let mut table = t.open_table(TABLE).run_err(&what)?;
            for part in 0..PRELOAD {
                table
                    .insert(key(0, part).as_slice(), payload(0, part).as_slice())
                    .run_err(&what)?;
            }
            table
                .insert(COUNTER, 0u64.to_le_bytes().as_slice())
                .run_err(&what)?;
        }
        t.commit().run_err(&what)?;
        Ok(())
    }

    fn count_events(&self, dir: &Path, plan: &Plan) -> Result<u64> {
        let db = fresh_copy(dir)?;
        let device = Arc::new(Device {
            crash_at: u64::MAX,
            ..Device::default()
        });
        run_until_failure(&db, dir, &device, self, plan)?;
        Ok(device.events.load(Ordering::Relaxed))
    }

    fn crash_at(&self, dir: &Path, plan: &Plan, point: u64, _state: u64) -> Result<PointResult> {
        let db = fresh_copy(dir)?;
        let device = Arc::new(Device {
            crash_at: point.max(1),
            ..Device::default()
        });
        let (in_flight, failure_panic) =
            match super::contain(|| run_until_failure(&db, dir, &device, self, plan)) {
                Ok(r) => (r?, None),
                Err(why) => (None, Some(why)),
            };
        // Everything that held the file is gone; decide what the medium keeps.
        device.events.store(u64::MAX, Ordering::Relaxed);
        let mut keep = super::survivor(plan, point);
        let volatile = std::mem::take(&mut *device.volatile());
        volatile
            .power_fail(&db, keep.as_mut().map(|k| k as &mut dyn FnMut() -> bool))
            .run_err("applying the power failure")?;
        let mut r = PointResult {
            point,
            acknowledged: read_acks(&dir.join(ACKS))?,
            in_flight,
            ..PointResult::default()
        };
        if let Some(why) = failure_panic {
            r.integrity = Some(format!("redb {why} when the power failed"));
        }
        if let Err(why) = super::contain(|| check(&db, plan, &mut r)) {
            r.integrity.get_or_insert(format!("recovery {why}"));
        }
        Ok(r)
    }

    fn speed(&self, dir: &Path, plan: &Plan) -> Result<f64> {
        let path = fresh_copy(dir)?;
        let what = "timing the durability workload";
        let db = Database::create(&path).run_err(what)?;
        super::time_transactions(plan, |txn| {
            transaction(&db, self, plan, txn).map_err(|e| Error::failed(format!("{what}: {e}")))
        })
    }
}

/// Recover with redb's own file backend (repairing an unclean file), check its integrity and
/// read everything back.
fn check(path: &Path, plan: &Plan, r: &mut PointResult) {
    let t0 = mono_ns();
    let opened = Database::create(path);
    r.recovery_ns = mono_ns() - t0;
    let mut db = match opened {
        Ok(db) => db,
        Err(e) => {
            r.integrity = Some(format!("recovery failed: {e}"));
            return;
        }
    };
    match db.check_integrity() {
        Ok(true) => {}
        Ok(false) => r.integrity = Some("check_integrity repaired the file".into()),
        Err(e) => r.integrity = Some(format!("check_integrity: {e}")),
    }
    let read = (|| -> std::result::Result<(ByTxn, std::result::Result<u64, String>), String> {
        let t = db.begin_read().map_err(|e| e.to_string())?;
        let table = t.open_table(TABLE).map_err(|e| e.to_string())?;
        let mut rows = ByTxn::new();
        let mut counter = Err("no counter".to_string());
        for entry in table.iter().map_err(|e| e.to_string())? {
            let (k, v) = entry.map_err(|e| e.to_string())?;
            let (k, v) = (k.value(), v.value());
            if k == COUNTER {
                counter = <[u8; 8]>::try_from(v)
                    .map(u64::from_le_bytes)
                    .map_err(|_| format!("counter of {} bytes", v.len()));
                continue;
            }
            let text = std::str::from_utf8(k).map_err(|_| "a key that is not text".to_string())?;
            let parsed = text
                .strip_prefix('t')
                .and_then(|t| t.split_once('-'))
                .and_then(|(t, p)| Some((t.parse::<u64>().ok()?, p.parse::<u64>().ok()?)));
            let Some((txn, part)) = parsed else {
                return Err(format!("an unexpected key {text:?}"));
            };
            rows.entry(txn)
                .or_default()
                .push((part, is_payload(txn, part, v)));
        }
        Ok((rows, counter))
    })();
    match read {
        Ok((rows, counter)) => judge(r, &rows, Some(counter), plan),
        Err(e) => {
            r.integrity.get_or_insert(format!("reading the data: {e}"));
        }
    }
}

//! SQLite under simulated power loss: a fixed transaction workload run on a copy of a prepared
//! database through the crash VFS ([`super::crash_vfs`]) until the power fails at a chosen I/O
//! event, then recovery with SQLite's own default VFS (hot-journal rollback, WAL recovery) and
//! the checks: `PRAGMA integrity_check`, every acknowledged transaction present in full, no
//! transaction present in part, nothing present that was never attempted, and the counter row
//! every transaction updates equal to the newest transaction present.
//!
//! The workload: table `log(txn, part, payload)` holds `preload` rows of transaction 0; each
//! transaction `i` (1, 2, …) inserts `rows_per_txn` rows `(i, part, payload(i, part))`
//! (`append`), or rewrites that many preloaded rows in place, each becoming
//! `(i, part, payload(i, part))` (`update`), and sets `counter.value = i`, in one
//! `BEGIN … COMMIT`. A transaction is acknowledged when its COMMIT
//! returns; the harness then appends `i` to the acknowledgement log, a file outside the
//! simulated device, synced before the checks read it back.

use super::crash_vfs::Disk;
use super::{
    is_payload, judge, last_writer, parts, payload, ByTxn, Plan, PointResult, Subject, Workload,
    PRELOAD,
};
use crate::error::{Error, Result, ResultExt};
use crate::platform::clock::mono_ns;
use rusqlite::types::ValueRef;
use rusqlite::{params, Connection, OpenFlags};
use std::io::Write;
use std::path::{Path, PathBuf};

const BASE: &str = "base.sqlite";
const DB: &str = "durability.sqlite";
/// The acknowledgement log (shared with the other engines' harnesses).
pub const ACKS: &str = "acknowledged.log";

/// One SQLite configuration: `journal_mode` and `synchronous` as their pragmas take them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub journal_mode: String,
    pub synchronous: String,
}

/// Create the starting database in `dir` (schema, transaction 0, the journal mode), synced
/// and closed with SQLite's default VFS.
fn prepare(dir: &Path, cfg: &Config) -> Result<()> {
    let path = dir.join(BASE);
    let what = format!("preparing {}", path.display());
    let conn = Connection::open(&path).run_err(&what)?;
    conn.query_row(
        &format!("PRAGMA journal_mode={}", cfg.journal_mode),
        [],
        |_| Ok(()),
    )
    .run_err(&what)?;
    conn.execute_batch(
        "CREATE TABLE log(txn INTEGER, part INTEGER, payload BLOB, PRIMARY KEY(txn, part));
         CREATE TABLE counter(id INTEGER PRIMARY KEY, value INTEGER NOT NULL);
         INSERT INTO counter VALUES (1, 0);",
    )
    .run_err(&what)?;
    let mut stmt = conn
        .prepare("INSERT INTO log VALUES (0, ?1, ?2)")
        .run_err(&what)?;
    for part in 0..PRELOAD {
        stmt.execute(params![part as i64, payload(0, part)])
            .run_err(&what)?;
    }
    drop(stmt);
    conn.close().map_err(|(_, e)| e).run_err(&what)?;
    Ok(())
}

fn fresh_copy(work: &Path) -> Result<PathBuf> {
    let base = work.join(BASE);
    let db = work.join(DB);
    for suffix in ["", "-journal", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }
    let _ = std::fs::remove_file(work.join(ACKS));
    std::fs::copy(&base, &db).run_err(format!("copying {}", base.display()))?;
    Ok(db)
}

fn transaction(conn: &Connection, plan: &Plan, txn: u64) -> rusqlite::Result<()> {
    let rows = u64::from(plan.rows_per_txn);
    conn.execute_batch("BEGIN")?;
    let body = (|| {
        for part in parts(plan.workload, txn, rows) {
            let changed = match plan.workload {
                Workload::Append => conn.execute(
                    "INSERT INTO log VALUES (?1, ?2, ?3)",
                    params![txn as i64, part as i64, payload(txn, part)],
                )?,
                Workload::Update => conn.execute(
                    "UPDATE log SET txn = ?1, payload = ?2 WHERE txn = ?3 AND part = ?4",
                    params![
                        txn as i64,
                        payload(txn, part),
                        last_writer(part, txn - 1, rows) as i64,
                        part as i64
                    ],
                )?,
            };
            if changed != 1 {
                return Err(rusqlite::Error::StatementChangedRows(changed));
            }
        }
        conn.execute("UPDATE counter SET value = ?1 WHERE id = 1", [txn as i64])?;
        conn.execute_batch("COMMIT")
    })();
    if body.is_err() {
        let _ = conn.execute_batch("ROLLBACK");
    }
    body
}

/// What happened before the power failed.
struct Before {
    events: u64,
    in_flight: Option<u64>,
}

/// Run the workload through `disk` until it ends or the power fails, logging acknowledgements.
fn run_until_failure(
    db: &Path,
    work: &Path,
    disk: &Disk,
    cfg: &Config,
    plan: &Plan,
) -> Result<Before> {
    let what = "the durability workload";
    let mut acks = std::fs::File::create(work.join(ACKS)).run_err(what)?;
    let mut in_flight = None;
    {
        let conn = Connection::open_with_flags_and_vfs(
            db,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_NO_MUTEX,
            disk.vfs_name(),
        )
        .run_err(what)?;
        let setup = conn
            .query_row(
                &format!("PRAGMA journal_mode={}", cfg.journal_mode),
                [],
                |_| Ok(()),
            )
            .and_then(|()| conn.execute_batch(&format!("PRAGMA synchronous={}", cfg.synchronous)));
        if setup.is_ok() {
            for txn in 1..=plan.txns {
                match transaction(&conn, plan, txn) {
                    Ok(()) => writeln!(acks, "{txn}").run_err(what)?,
                    Err(_) => {
                        in_flight = Some(txn);
                        break;
                    }
                }
            }
        }
        // Closing checkpoints a WAL; if the power fails there, so be it.
        let _ = conn.close();
    }
    acks.sync_data().run_err(what)?;
    Ok(Before {
        events: disk.events(),
        in_flight,
    })
}

impl Subject for Config {
    fn engine(&self) -> &'static str {
        "sqlite"
    }

    fn config(&self) -> Vec<(String, String)> {
        vec![
            ("journal_mode".into(), self.journal_mode.clone()),
            ("synchronous".into(), self.synchronous.clone()),
        ]
    }

    fn model(&self, torn: bool) -> String {
        if torn {
            "power loss, torn: a random half of the unsynced 512-byte sectors survive (SQLite VFS)"
        } else {
            "power loss: every write not synced is lost, and new files not synced (SQLite VFS)"
        }
        .into()
    }

    fn prepare(&self, dir: &Path) -> Result<()> {
        prepare(dir, self)
    }

    fn count_events(&self, dir: &Path, plan: &Plan) -> Result<u64> {
        let db = fresh_copy(dir)?;
        let disk = Disk::new(u64::MAX).ok_or_else(|| Error::failed("SQLite has no default VFS"))?;
        Ok(run_until_failure(&db, dir, &disk, self, plan)?.events)
    }

    fn speed(&self, dir: &Path, plan: &Plan) -> Result<f64> {
        let db = fresh_copy(dir)?;
        let what = "timing the durability workload";
        let conn = Connection::open(&db).run_err(what)?;
        conn.query_row(
            &format!("PRAGMA journal_mode={}", self.journal_mode),
            [],
            |_| Ok(()),
        )
        .run_err(what)?;
        conn.execute_batch(&format!("PRAGMA synchronous={}", self.synchronous))
            .run_err(what)?;
        super::time_transactions(plan, |txn| transaction(&conn, plan, txn).run_err(what))
    }

    fn crash_at(&self, dir: &Path, plan: &Plan, point: u64, _state: u64) -> Result<PointResult> {
        let db = fresh_copy(dir)?;
        let disk = Disk::new(point).ok_or_else(|| Error::failed("SQLite has no default VFS"))?;
        let before = run_until_failure(&db, dir, &disk, self, plan)?;
        let mut keep = super::survivor(plan, point);
        disk.power_fail(keep.as_mut().map(|k| k as &mut dyn FnMut() -> bool))
            .run_err("applying the power failure")?;
        drop(disk);
        let mut r = PointResult {
            point,
            acknowledged: read_acks(&dir.join(ACKS))?,
            in_flight: before.in_flight,
            ..PointResult::default()
        };
        check(&db, plan, &mut r);
        Ok(r)
    }
}

/// The newest transaction in the acknowledgement log.
pub fn read_acks(path: &Path) -> Result<u64> {
    let text = std::fs::read_to_string(path).run_err("reading the acknowledgement log")?;
    Ok(text
        .lines()
        .filter_map(|l| l.parse().ok())
        .max()
        .unwrap_or(0))
}

/// Recover with SQLite's default VFS and check the database against the acknowledgements.
fn check(db: &Path, plan: &Plan, r: &mut PointResult) {
    let t0 = mono_ns();
    let opened = Connection::open(db).and_then(|c| {
        c.query_row("SELECT count(*) FROM log", [], |row| row.get::<_, i64>(0))?;
        Ok(c)
    });
    r.recovery_ns = mono_ns() - t0;
    let conn = match opened {
        Ok(c) => c,
        Err(e) => {
            r.integrity = Some(format!("recovery failed: {e}"));
            return;
        }
    };
    match integrity(&conn) {
        Ok(None) => {}
        Ok(Some(problem)) | Err(problem) => r.integrity = Some(problem),
    }
    let rows = (|| -> rusqlite::Result<ByTxn> {
        let mut stmt = conn.prepare("SELECT txn, part, payload FROM log ORDER BY txn, part")?;
        let mut by_txn = ByTxn::new();
        let mut q = stmt.query([])?;
        while let Some(row) = q.next()? {
            let txn = row.get::<_, i64>(0)? as u64;
            let part = row.get::<_, i64>(1)? as u64;
            // Compared where SQLite holds it; a payload of another type is read as a blob for
            // the error that gives.
            let intact = match row.get_ref(2)? {
                ValueRef::Blob(b) => is_payload(txn, part, b),
                _ => is_payload(txn, part, &row.get::<_, Vec<u8>>(2)?),
            };
            by_txn.entry(txn).or_default().push((part, intact));
        }
        Ok(by_txn)
    })();
    let by_txn = match rows {
        Ok(m) => m,
        Err(e) => {
            r.integrity.get_or_insert(format!("reading the data: {e}"));
            return;
        }
    };
    let counter = conn
        .query_row("SELECT value FROM counter WHERE id = 1", [], |row| {
            row.get::<_, i64>(0)
        })
        .map(|v| v as u64)
        .map_err(|e| e.to_string());
    judge(r, &by_txn, Some(counter), plan);
}

/// `PRAGMA integrity_check`: `None` when it says ok, else its first complaint.
fn integrity(conn: &Connection) -> std::result::Result<Option<String>, String> {
    let mut stmt = conn
        .prepare("PRAGMA integrity_check")
        .map_err(|e| format!("integrity_check: {e}"))?;
    let lines: Vec<String> = stmt
        .query_map([], |row| row.get(0))
        .and_then(|rows| rows.collect())
        .map_err(|e| format!("integrity_check: {e}"))?;
    Ok(match lines.as_slice() {
        [ok] if ok == "ok" => None,
        _ => Some(lines.first().cloned().unwrap_or_default()),
    })
}

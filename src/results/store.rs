//! The results store: a SQLite file (default `./pocketbench.db`) holding every result — a
//! workload run's summary and its per-operation samples, a suite run's (`storage`,
//! `flashbench`) summary and series — in one table of results with one id space (`kind` says
//! which). Stores of earlier versions are upgraded when opened (`migrate`). A run is written in one transaction, so the store never holds
//! half a run: either the summary and all its samples are there, or nothing is.

use super::guard::{self, Access};
use super::summary::RunSummary;
use crate::error::{Error, Result, ResultExt};
use crate::run::sample::OpSample;
use rusqlite::{params, Connection, Transaction};

use std::path::{Path, PathBuf};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY,
    created_at TEXT NOT NULL,
    workload TEXT NOT NULL,
    engine TEXT NOT NULL,
    ops INTEGER NOT NULL,
    errors INTEGER NOT NULL,
    summary TEXT NOT NULL,
    -- run (a workload run), storage or flashbench
    kind TEXT NOT NULL DEFAULT 'run'
);
CREATE TABLE IF NOT EXISTS suite_series (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS op_samples (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    kind TEXT NOT NULL,
    ok INTEGER NOT NULL,
    key INTEGER NOT NULL,
    intended_ns INTEGER NOT NULL,
    start_ns INTEGER NOT NULL,
    end_ns INTEGER NOT NULL,
    cpu_ns INTEGER NOT NULL,
    sleep_requested_ns INTEGER NOT NULL,
    sleep_actual_ns INTEGER NOT NULL,
    io_reads INTEGER NOT NULL,
    io_read_bytes INTEGER NOT NULL,
    io_writes INTEGER NOT NULL,
    io_write_bytes INTEGER NOT NULL,
    io_syncs INTEGER NOT NULL,
    io_blocked_ns INTEGER NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
";

/// Studies run by `pocketbench matrix` (src/study/): one row per study, and one row per run
/// that belongs to a study, written in the run's own transaction so that a run and its place in
/// the study are stored together or not at all.
const STUDY_SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS studies (
    id INTEGER PRIMARY KEY,
    name TEXT NOT NULL,
    plan_id TEXT NOT NULL,
    plan TEXT NOT NULL,
    created_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS matrix_cells (
    run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
    study_id INTEGER NOT NULL REFERENCES studies(id),
    cell_id TEXT NOT NULL,
    cell_index INTEGER NOT NULL,
    repeat INTEGER NOT NULL,
    labels TEXT NOT NULL,
    args TEXT NOT NULL,
    UNIQUE (study_id, cell_id, repeat)
);
";

pub struct Store {
    conn: Connection,
    path: PathBuf,
    /// (device, inode) of the file opened, to notice it deleted or replaced meanwhile.
    file: Option<(u64, u64)>,
}

fn identity(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path).ok().map(|m| (m.dev(), m.ino()))
}

/// One row of `results list`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct RunRow {
    pub id: i64,
    /// `run` (a workload run), `storage` or `flashbench`.
    pub kind: String,
    pub created_at: String,
    pub workload: String,
    pub engine: String,
    pub ops: i64,
    pub errors: i64,
    pub p50_us: Option<f64>,
    pub p99_us: Option<f64>,
    /// The device it was measured on (`adb:SERIAL`, `ssh:…`) when it came back through
    /// `pocketbench device`; none for a run on this machine.
    pub device: Option<String>,
    /// Its maker and model (`samsung SM-G991B`, `Raspberry Pi 4 Model B`), when the device
    /// said.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_model: Option<String>,
}

/// The store's tables and its schema version, in `c`.
fn write_schema(c: &rusqlite::Connection) -> rusqlite::Result<()> {
    c.execute_batch(SCHEMA)?;
    c.execute_batch(STUDY_SCHEMA)?;
    c.execute(
        "INSERT OR IGNORE INTO meta VALUES ('schema_version', ?1)",
        [guard::SCHEMA_VERSION.to_string()],
    )?;
    Ok(())
}

impl Store {
    /// Open (creating if needed) the store at `path` for writing, after the checks of
    /// [`guard::open`]: an unusable, foreign, newer or corrupt store is a bad-input error
    /// naming `--results`, found before anything is measured.
    pub fn open(path: &Path) -> Result<Self> {
        let existed = path.exists() || path == Path::new(":memory:");
        Self::create(path).inspect_err(|_| {
            if !existed {
                guard::remove_store_files(path);
            }
        })
    }

    /// [`Store::open`], refused first (creating nothing) when the store's file system cannot
    /// hold `bytes` more.
    pub fn open_with_room(path: &Path, bytes: u64) -> Result<Self> {
        guard::check_room(path, bytes)?;
        Self::open(path)
    }

    fn create(path: &Path) -> Result<Self> {
        let (conn, needs_schema) = guard::open(path, Access::Write)?;
        if needs_schema {
            let tx = guard::begin_write(&conn)?;
            let created = (|| -> rusqlite::Result<()> {
                write_schema(&tx)?;
                tx.execute_batch(&format!(
                    "PRAGMA application_id = {}; PRAGMA user_version = {};",
                    guard::APPLICATION_ID,
                    guard::SCHEMA_VERSION
                ))
            })();
            created.and_then(|()| tx.commit()).map_err(|e| {
                Error::input(format!(
                    "--results {}: cannot create the results store: {e}",
                    path.display()
                ))
            })?;
        }
        super::migrate::upgrade(&conn, path)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            file: identity(path),
        })
    }

    /// Open an existing store for reading: nothing is created or changed, and a writer in
    /// another process never blocks it (WAL).
    /// An empty file (what `sqlite3 pocketbench.db "…"` leaves, or `touch`) is read as an
    /// empty store, as `run` takes it: the views say there are no runs.
    pub fn open_read(path: &Path) -> Result<Self> {
        let (conn, needs_schema) = guard::open(path, Access::Read)?;
        let has_runs = guard::has_table(&conn, "main", "runs").unwrap_or(false);
        if needs_schema && !has_runs {
            if path.metadata().is_ok_and(|m| m.len() == 0) {
                return Self::empty(path);
            }
            return Err(Error::input(format!(
                "--results {}: empty file, not a results store",
                path.display()
            )));
        }
        super::migrate::upgrade(&conn, path)?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            file: identity(path),
        })
    }

    /// A store with the schema and nothing else, in memory, standing for the empty file at
    /// `path` (which is left as it is).
    fn empty(path: &Path) -> Result<Self> {
        let conn = rusqlite::Connection::open_in_memory()
            .and_then(|c| write_schema(&c).map(|()| c))
            .map_err(|e| Error::failed(format!("an empty store in memory: {e}")))?;
        Ok(Store {
            conn,
            path: path.to_path_buf(),
            file: identity(path),
        })
    }

    /// Open an existing store for a view of what it holds (`--show`, `--from-results`): a
    /// missing store is a bad-input error; a read-only store or folder is fine.
    pub fn open_existing(path: &Path) -> Result<Self> {
        if !path.is_file() {
            return Err(Error::input(format!(
                "--results {}: no results store there",
                crate::limits::escape(&path.display().to_string())
            )));
        }
        Self::open_read(path)
    }

    /// Refuse before measuring when the store's file system cannot hold `bytes` more.
    pub fn check_room(&self, bytes: u64) -> Result<()> {
        guard::check_room(&self.path, bytes)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Before a long-running command stores its result: when the path no longer names the
    /// file that was opened (deleted, or replaced by another file), say so, and either
    /// continue with the store now at the path (replaced: it is opened, checked as any store)
    /// or fail so that the result is spooled (deleted).
    pub fn follow_path(&mut self) -> Result<()> {
        if self.file.is_none() || identity(&self.path) == self.file {
            return Ok(());
        }
        let p = self.path.display();
        if !self.path.exists() {
            return Err(Error::failed(format!(
                "the results store {p} was deleted during the run"
            )));
        }
        eprintln!(
            "pocketbench: note: the results store {p} was replaced during the run; storing into the store now at {p}"
        );
        *self = Store::open(&self.path)?;
        Ok(())
    }

    /// The connection, for modules that own their own queries (studies, reports).
    pub fn conn(&self) -> &Connection {
        &self.conn
    }

    /// The connection, mutably, for modules that keep their own tables (see `suites`).
    pub(crate) fn conn_mut(&mut self) -> &mut Connection {
        &mut self.conn
    }

    /// Begin writing one run. Nothing is visible until [`RunWriter::commit`].
    pub fn begin_run(&mut self) -> Result<RunWriter<'_>> {
        let tx = guard::begin_write(&self.conn)?;
        tx.execute(
            "INSERT INTO runs (created_at, workload, engine, ops, errors, summary) VALUES ('', '', '', 0, 0, '{}')",
            [],
        )
        .run_err("results store: insert run")?;
        let id = tx.last_insert_rowid();
        Ok(RunWriter { tx, id })
    }

    pub fn list(&self) -> Result<Vec<RunRow>> {
        let mut stmt = self
            .conn
            .prepare(
                // A suite result's engine is in its summary (models: the list of engines;
                // storage and flashbench measure SQLite).
                "SELECT id, created_at, workload,
                        CASE WHEN engine <> '' THEN engine
                             WHEN kind = 'models' THEN
                                 (SELECT group_concat(value, ',') FROM json_each(summary, '$.engines'))
                             WHEN kind IN ('storage', 'flashbench') THEN 'sqlite'
                             ELSE coalesce(json_extract(summary, '$.engine'), '-') END,
                        ops, errors,
                        json_extract(summary, '$.latency_us.all.p50'), json_extract(summary, '$.latency_us.all.p99'),
                        kind, json_extract(summary, '$.device.target'),
                        nullif(trim(coalesce(json_extract(summary, '$.device.manufacturer'), '') || ' ' ||
                                    coalesce(json_extract(summary, '$.device.model'), '')), '')
                 FROM runs ORDER BY id",
            )
            .run_err("results store")?;
        let rows = stmt
            .query_map([], |r| {
                Ok(RunRow {
                    id: r.get(0)?,
                    created_at: r.get(1)?,
                    workload: r.get(2)?,
                    engine: r.get(3)?,
                    ops: r.get(4)?,
                    errors: r.get(5)?,
                    p50_us: r.get(6)?,
                    p99_us: r.get(7)?,
                    kind: r.get(8)?,
                    device: r.get::<_, Option<String>>(9).ok().flatten(),
                    device_model: r.get::<_, Option<String>>(10).ok().flatten(),
                })
            })
            .run_err("results store")?;
        rows.collect::<std::result::Result<Vec<_>, _>>()
            .run_err("results store")
    }

    /// The kind of result `id` is (`run`, `storage`, `flashbench`).
    pub fn kind(&self, id: i64) -> Result<String> {
        self.conn
            .query_row("SELECT kind FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .map_err(|_| {
                Error::input(format!(
                    "results show {id}: no result with id {id} in {}",
                    self.path.display()
                ))
            })
    }

    /// The summary of workload run `id`.
    pub fn summary(&self, id: i64) -> Result<RunSummary> {
        let kind = self.kind(id)?;
        if kind != "run" {
            return Err(Error::input(format!(
                "result {id} is a {kind} run, not a workload run (`pocketbench results show {id}` prints it)"
            )));
        }
        let text: String = self
            .conn
            .query_row("SELECT summary FROM runs WHERE id = ?1", [id], |r| r.get(0))
            .run_err(format!("results store: run {id}"))?;
        serde_json::from_str(&text).run_err(format!("results store: run {id}"))
    }

    /// Replace the summary of stored run `id` (e.g. after importing an external meter's
    /// energy), in one statement.
    pub fn replace_summary(&self, summary: &RunSummary) -> Result<()> {
        let json = serde_json::to_string(summary).run_err("results store: summary")?;
        let n = self
            .conn
            .execute(
                "UPDATE runs SET summary = ?1 WHERE id = ?2",
                params![json, summary.id],
            )
            .run_err("results store: update run")?;
        if n == 0 {
            return Err(Error::input(format!(
                "no run with id {} in {}",
                summary.id,
                self.path.display()
            )));
        }
        Ok(())
    }

    /// Number of samples stored for run `id`.
    pub fn sample_count(&self, id: i64) -> Result<u64> {
        self.conn
            .query_row(
                "SELECT count(*) FROM op_samples WHERE run_id = ?1",
                [id],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as u64)
            .run_err("results store")
    }
}

/// A run being written; dropped without commit, it leaves no trace in the store.
pub struct RunWriter<'a> {
    tx: Transaction<'a>,
    id: i64,
}

impl RunWriter<'_> {
    pub fn id(&self) -> i64 {
        self.id
    }

    /// The run's open transaction, for rows that must commit with the run (a study's cell).
    pub fn tx(&self) -> &Transaction<'_> {
        &self.tx
    }

    /// Store one sample; times are stored relative to `t0_ns` (the run's start).
    pub fn sample(&mut self, s: &OpSample, t0_ns: u64) -> Result<()> {
        let rel = |t: u64| t.saturating_sub(t0_ns) as i64;
        let mut stmt = self
            .tx
            .prepare_cached("INSERT INTO op_samples VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?9,?10,?11,?12,?13,?14,?15,?16,?17)")
            .run_err("results store")?;
        stmt.execute(params![
            self.id,
            s.seq as i64,
            s.kind().name(),
            s.ok,
            s.key as i64,
            rel(s.intended_ns),
            rel(s.start_ns),
            rel(s.end_ns),
            s.cpu_ns as i64,
            s.sleep_requested_ns as i64,
            s.sleep_actual_ns as i64,
            s.io.reads as i64,
            s.io.read_bytes as i64,
            s.io.writes as i64,
            s.io.write_bytes as i64,
            s.io.syncs as i64,
            s.io.blocked_ns() as i64,
        ])
        .run_err("results store: insert sample")?;
        Ok(())
    }

    /// Write the summary and make the whole run visible at once.
    pub fn commit(self, summary: &RunSummary) -> Result<()> {
        let json = serde_json::to_string(summary).run_err("results store: summary")?;
        self.tx
            .execute(
                "UPDATE runs SET created_at = ?1, workload = ?2, engine = ?3, ops = ?4, errors = ?5, summary = ?6 WHERE id = ?7",
                params![
                    summary.created_at,
                    summary.workload.name,
                    summary.engine.name,
                    summary.ops as i64,
                    summary.errors as i64,
                    json,
                    self.id
                ],
            )
            .run_err("results store: update run")?;
        self.tx.commit().run_err("results store: COMMIT")
    }
}

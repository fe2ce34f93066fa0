//! Upgrading a results store written by an earlier pocketbench to this version's schema, in
//! one write transaction when it is first opened (for reading or writing): nothing is lost and
//! run ids stay as they were.
//!
//! - Schema 1 → 2: one results model. Workload runs and suite runs (`storage`, `flashbench`)
//!   were two tables (`runs`, `suite_runs`) with two id spaces; now every result is a row of
//!   `runs` with its `kind` (`run`, `storage`, `flashbench`). Suite runs are appended after the
//!   existing runs in their old order (their ids change: suite run 1 of a store with 2 runs
//!   becomes 3), and their series move with them.

use super::guard;
use crate::error::{Error, Result};
use rusqlite::{Connection, OptionalExtension};
use std::path::Path;

/// The schema version the store at `conn` holds (1 for the unmarked first stores).
fn version(conn: &Connection) -> rusqlite::Result<i64> {
    let v: Option<String> = conn
        .query_row(
            "SELECT value FROM meta WHERE key = 'schema_version'",
            [],
            |r| r.get(0),
        )
        .optional()?;
    Ok(v.and_then(|v| v.parse().ok()).unwrap_or(1))
}

/// Bring the store up to [`guard::SCHEMA_VERSION`] if it is older. A read-only older store is
/// refused with what to do, since it cannot be read as it is.
pub fn upgrade(conn: &Connection, path: &Path) -> Result<()> {
    let bad = |msg: String| Error::input(format!("--results {}: {msg}", path.display()));
    let from = version(conn).map_err(|e| bad(format!("cannot read: {e}")))?;
    if from >= guard::SCHEMA_VERSION || !guard::has_table(conn, "main", "runs").unwrap_or(false) {
        return Ok(());
    }
    if !guard::writable(path) {
        return Err(bad(format!(
            "written by an older pocketbench (store schema {from}); make the file writable once so it can be upgraded to schema {}",
            guard::SCHEMA_VERSION
        )));
    }
    let tx = guard::begin_write(conn)?;
    // Another process may have upgraded it while we waited for the lock.
    let from = version(&tx).map_err(|e| bad(format!("cannot read: {e}")))?;
    if from < 2 {
        to_v2(&tx).map_err(|e| bad(format!("upgrading from schema {from}: {e}")))?;
    }
    tx.execute_batch(&format!(
        "UPDATE meta SET value = '{v}' WHERE key = 'schema_version'; PRAGMA user_version = {v};",
        v = guard::SCHEMA_VERSION
    ))
    .and_then(|()| tx.commit())
    .map_err(|e| bad(format!("upgrading: {e}")))
}

/// Schema 1 → 2: `runs.kind`, suite runs moved into `runs`, `suite_series` pointing at them.
fn to_v2(tx: &Connection) -> rusqlite::Result<()> {
    let has_kind: bool = tx.query_row(
        "SELECT count(*) FROM pragma_table_info('runs') WHERE name = 'kind'",
        [],
        |r| r.get::<_, i64>(0).map(|n| n > 0),
    )?;
    if !has_kind {
        tx.execute_batch("ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'run';")?;
    }
    if guard::has_table(tx, "main", "suite_runs")? {
        tx.execute_batch(
            "CREATE TEMP TABLE suite_map (old INTEGER PRIMARY KEY, new INTEGER NOT NULL);",
        )?;
        let old: Vec<i64> = tx
            .prepare("SELECT id FROM suite_runs ORDER BY id")?
            .query_map([], |r| r.get(0))?
            .collect::<rusqlite::Result<_>>()?;
        for id in old {
            tx.execute(
                "INSERT INTO runs (created_at, workload, engine, ops, errors, summary, kind)
                 SELECT created_at, suite, '', 0, 0, summary, suite FROM suite_runs WHERE id = ?1",
                [id],
            )?;
            tx.execute(
                "INSERT INTO suite_map VALUES (?1, ?2)",
                [id, tx.last_insert_rowid()],
            )?;
        }
        tx.execute_batch(&format!(
            "{SERIES_V2}
             INSERT INTO series_v2 SELECT m.new, s.name, s.data
                 FROM suite_series s JOIN suite_map m ON m.old = s.run_id;
             DROP TABLE suite_series;
             DROP TABLE suite_runs;
             ALTER TABLE series_v2 RENAME TO suite_series;
             DROP TABLE suite_map;"
        ))?;
    } else {
        tx.execute_batch(&SERIES_V2.replace(
            "CREATE TABLE series_v2",
            "CREATE TABLE IF NOT EXISTS suite_series",
        ))?;
    }
    Ok(())
}

const SERIES_V2: &str = "CREATE TABLE series_v2 (
    run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    data BLOB NOT NULL,
    PRIMARY KEY (run_id, name)
) WITHOUT ROWID;";

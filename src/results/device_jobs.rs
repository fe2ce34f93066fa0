//! Results that came back from a device (`pocketbench device run|pull`): the device's results
//! store is copied into the local one in one transaction, every run tagged with the device's
//! identity (`device` in its summary), and the job recorded in `device_jobs` so that pulling
//! the same job again — after a lost connection, say — never stores its runs twice.

use super::store::Store;
use crate::error::{Error, Result, ResultExt};
use rusqlite::{params, OptionalExtension};
use std::path::Path;

const TABLE: &str = "CREATE TABLE IF NOT EXISTS device_jobs (
    job TEXT PRIMARY KEY,
    target TEXT NOT NULL,
    merged_at TEXT NOT NULL,
    -- JSON array of the runs' ids in this store
    runs TEXT NOT NULL
)";

/// What merging a device job did.
#[derive(Debug, PartialEq, Eq)]
pub enum Merged {
    /// The job's runs are now in the store under these ids.
    New(Vec<i64>),
    /// The job was merged before, as these runs.
    Before(Vec<i64>),
}

/// Copy the runs of the device's store `from` into `into`, each tagged with `device`, and
/// record the job; or report that job `job` was merged before.
pub fn merge(
    into: &mut Store,
    from: &Path,
    job: &str,
    target: &str,
    device: &serde_json::Value,
) -> Result<Merged> {
    let what = format!("device job {job}");
    into.conn().execute(TABLE, []).run_err(&what)?;
    if let Some(ids) = merged_before(into, job)? {
        return Ok(Merged::Before(ids));
    }
    // Checked (and a store of another version refused) before attaching it.
    drop(Store::open_read(from).map_err(|e| e.context(&what))?);
    let file = from
        .to_str()
        .ok_or_else(|| Error::failed(format!("{what}: the path is not UTF-8")))?;
    into.conn()
        .execute("ATTACH DATABASE ?1 AS src", [file])
        .run_err(&what)?;
    let tag = serde_json::to_string(device).run_err(&what)?;
    let copied = (|| -> Result<Merged> {
        let tx = super::guard::begin_write(into.conn())?;
        // Another pull may have merged it while we waited for the lock.
        let again: Option<String> = tx
            .query_row("SELECT runs FROM device_jobs WHERE job = ?1", [job], |r| {
                r.get(0)
            })
            .optional()
            .run_err(&what)?;
        if let Some(runs) = again {
            return Ok(Merged::Before(
                serde_json::from_str(&runs).unwrap_or_default(),
            ));
        }
        let runs = super::spool::copy_all(&tx).run_err(&what)?;
        let ids: Vec<i64> = runs.iter().map(|&(_, new)| new).collect();
        for id in &ids {
            tx.execute(
                "UPDATE runs SET summary = json_set(summary, '$.device', json(?2)) WHERE id = ?1",
                params![id, tag],
            )
            .run_err(&what)?;
        }
        tx.execute(
            "INSERT INTO device_jobs VALUES (?1, ?2, ?3, ?4)",
            params![
                job,
                target,
                crate::platform::clock::utc_now(),
                serde_json::to_string(&ids).run_err(&what)?
            ],
        )
        .run_err(&what)?;
        tx.commit().run_err(&what)?;
        Ok(Merged::New(ids))
    })();
    let detached = into.conn().execute("DETACH DATABASE src", []);
    let merged = copied?;
    detached.run_err(&what)?;
    Ok(merged)
}

fn merged_before(store: &Store, job: &str) -> Result<Option<Vec<i64>>> {
    let runs: Option<String> = store
        .conn()
        .query_row("SELECT runs FROM device_jobs WHERE job = ?1", [job], |r| {
            r.get(0)
        })
        .optional()
        .run_err("device_jobs")?;
    Ok(runs.map(|r| serde_json::from_str(&r).unwrap_or_default()))
}

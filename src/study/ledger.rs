//! A study's record in the results store (tables `studies` and `matrix_cells`): which study a
//! run belongs to, as which cell and repeat. A run's cell row is written in the run's own
//! transaction, so after any interruption the store holds exactly the runs that finished, each
//! once; `--resume` reads this to know what is left.

use super::cells::Cell;
use super::plan::{Order, Plan};
use crate::error::{Result, ResultExt};
use crate::results::store::Store;
use rusqlite::{params, OptionalExtension};
use std::collections::HashSet;

/// A study stored in the results store.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Study {
    pub id: i64,
    pub name: String,
    pub plan_id: String,
    pub created_at: String,
}

/// The most recent study of this plan in the store.
pub fn latest(store: &Store, plan_id: &str) -> Result<Option<Study>> {
    store
        .conn()
        .query_row(
            "SELECT id, name, plan_id, created_at FROM studies WHERE plan_id = ?1 ORDER BY id DESC LIMIT 1",
            [plan_id],
            |r| {
                Ok(Study {
                    id: r.get(0)?,
                    name: r.get(1)?,
                    plan_id: r.get(2)?,
                    created_at: r.get(3)?,
                })
            },
        )
        .optional()
        .run_err("results store: studies")
}

/// Start a new study of `plan`.
pub fn create(store: &Store, plan: &Plan, plan_id: &str, cells: &[Cell]) -> Result<Study> {
    let description = serde_json::json!({
        "name": plan.name,
        "source": plan.source,
        "repeats": plan.repeats,
        "order": if plan.order == Order::Random { "random" } else { "fixed" },
        "seed": plan.seed,
        "suite": plan.suite,
        "cooldown_ns": plan.cooldown_ns,
        "confidence": plan.confidence,
        "notices": plan.notices,
        "grid": plan.grid,
        "cells": cells.iter().map(|c| serde_json::json!({
            "id": c.id, "labels": labels_json(c), "args": c.args
        })).collect::<Vec<_>>(),
    });
    let created_at = crate::platform::clock::utc_now();
    store
        .conn()
        .execute(
            "INSERT INTO studies (name, plan_id, plan, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![plan.name, plan_id, description.to_string(), created_at],
        )
        .run_err("results store: insert study")?;
    Ok(Study {
        id: store.conn().last_insert_rowid(),
        name: plan.name.clone(),
        plan_id: plan_id.to_string(),
        created_at,
    })
}

/// The (cell id, repeat) pairs of `study` already stored.
pub fn done(store: &Store, study: i64) -> Result<HashSet<(String, u32)>> {
    let mut stmt = store
        .conn()
        .prepare("SELECT cell_id, repeat FROM matrix_cells WHERE study_id = ?1")
        .run_err("results store: matrix_cells")?;
    let rows = stmt
        .query_map([study], |r| {
            Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?))
        })
        .run_err("results store: matrix_cells")?;
    rows.collect::<std::result::Result<_, _>>()
        .run_err("results store: matrix_cells")
}

/// The runs stored for `study`: (run id, cell name as `axis=value …`, repeat), in cell and
/// repeat order.
pub fn runs(store: &Store, study: i64) -> Result<Vec<(i64, String, u32)>> {
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT run_id, labels, repeat FROM matrix_cells WHERE study_id = ?1 ORDER BY cell_index, repeat",
        )
        .run_err("results store: matrix_cells")?;
    let rows = stmt
        .query_map([study], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, u32>(2)?,
            ))
        })
        .run_err("results store: matrix_cells")?;
    let mut out = Vec::new();
    for row in rows {
        let (id, labels, repeat) = row.run_err("results store: matrix_cells")?;
        let pairs: Vec<(String, String)> = serde_json::from_str(&labels).unwrap_or_default();
        let name = pairs
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ");
        out.push((id, name, repeat));
    }
    Ok(out)
}

/// Record, inside the run's transaction `tx`, that run `run_id` is `cell`'s `repeat` in
/// `study`.
pub fn record(
    tx: &rusqlite::Transaction<'_>,
    run_id: i64,
    study: i64,
    cell: &Cell,
    repeat: u32,
) -> Result<()> {
    tx.execute(
            "INSERT INTO matrix_cells (run_id, study_id, cell_id, cell_index, repeat, labels, args) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                run_id,
                study,
                cell.id,
                cell.index as i64,
                repeat,
                labels_json(cell).to_string(),
                serde_json::to_string(&cell.args).unwrap_or_default()
            ],
        )
        .run_err("results store: insert matrix cell")?;
    Ok(())
}

/// Labels as a JSON object that keeps axis order (`[["workload","ycsb-a"], ...]`).
fn labels_json(cell: &Cell) -> serde_json::Value {
    serde_json::Value::Array(
        cell.labels
            .iter()
            .map(|(k, v)| serde_json::json!([k, v]))
            .collect(),
    )
}

/// Claims on (cell, repeat) pairs being run right now, so that several `matrix --resume`
/// processes on one store share the missing runs instead of all running all of them.
const CLAIMS: &str = "CREATE TABLE IF NOT EXISTS matrix_claims (
    study_id INTEGER NOT NULL,
    cell_id TEXT NOT NULL,
    repeat INTEGER NOT NULL,
    pid INTEGER NOT NULL,
    boot_id TEXT NOT NULL,
    claimed_at TEXT NOT NULL,
    PRIMARY KEY (study_id, cell_id, repeat)
)";

/// This boot of this machine: a claim made under another boot id cannot still be running.
fn boot_id() -> String {
    std::fs::read_to_string("/proc/sys/kernel/random/boot_id")
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// Whether the process that made a claim may still be running it.
fn alive(pid: i64, boot: &str) -> bool {
    let me = i64::from(std::process::id());
    // SAFETY: signal 0 only checks that the process exists.
    boot == boot_id() && pid != me && unsafe { libc::kill(pid as libc::pid_t, 0) } == 0
}

/// Claim `cell`'s `repeat` in `study` for this process, in one short write transaction.
/// False when the run is already stored, or claimed by another process that is still alive
/// (a claim left by a process that died is taken over).
pub fn claim(store: &Store, study: i64, cell: &Cell, repeat: u32) -> Result<bool> {
    let tx = crate::results::guard::begin_write(store.conn())?;
    tx.execute_batch(CLAIMS)
        .run_err("results store: matrix_claims")?;
    let stored: i64 = tx
        .query_row(
            "SELECT count(*) FROM matrix_cells WHERE study_id = ?1 AND cell_id = ?2 AND repeat = ?3",
            params![study, cell.id, repeat],
            |r| r.get(0),
        )
        .run_err("results store: matrix_cells")?;
    if stored > 0 {
        return Ok(false);
    }
    let holder: Option<(i64, String)> = tx
        .query_row(
            "SELECT pid, boot_id FROM matrix_claims WHERE study_id = ?1 AND cell_id = ?2 AND repeat = ?3",
            params![study, cell.id, repeat],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()
        .run_err("results store: matrix_claims")?;
    if holder.is_some_and(|(pid, boot)| alive(pid, &boot)) {
        return Ok(false);
    }
    tx.execute(
        "INSERT OR REPLACE INTO matrix_claims VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        params![
            study,
            cell.id,
            repeat,
            i64::from(std::process::id()),
            boot_id(),
            crate::platform::clock::utc_now()
        ],
    )
    .run_err("results store: matrix_claims")?;
    tx.commit().run_err("results store: COMMIT")?;
    Ok(true)
}

/// Give up this process's claim on `cell`'s `repeat` (after storing it, or after it failed).
pub fn release(store: &Store, study: i64, cell: &Cell, repeat: u32) -> Result<()> {
    let tx = crate::results::guard::begin_write(store.conn())?;
    tx.execute(
        "DELETE FROM matrix_claims WHERE study_id = ?1 AND cell_id = ?2 AND repeat = ?3 AND pid = ?4",
        params![study, cell.id, repeat, i64::from(std::process::id())],
    )
    .run_err("results store: matrix_claims")?;
    tx.commit().run_err("results store: COMMIT")
}

//! A study's record in the results store (tables `studies` and `matrix_cells`): which study a
//! run belongs to, as which cell and repeat. A run's cell row is written in the run's own
//! transaction, so after any interruption the store holds exactly the runs that finished, each
//! once; `--resume` reads this to know what is left.

use super::cells::Cell;
use super::plan::{Order, Plan};
use crate::error::{Result, ResultExt};
use crate::results::store::{RunWriter, Store};
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
        "cooldown_ns": plan.cooldown_ns,
        "confidence": plan.confidence,
        "notices": plan.notices,
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

/// Record, inside the run's transaction, that the run is `cell`'s `repeat` in `study`.
pub fn record(writer: &RunWriter<'_>, study: i64, cell: &Cell, repeat: u32) -> Result<()> {
    writer
        .tx()
        .execute(
            "INSERT INTO matrix_cells (run_id, study_id, cell_id, cell_index, repeat, labels, args) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            params![
                writer.id(),
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

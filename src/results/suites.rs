//! Benchmark-suite runs in the results store (`flashbench`, `storage`): a result of that
//! `kind` with its JSON summary, plus named series of integers (per-request response times,
//! per-request flash counters) stored as little-endian u64 blobs. A run is written in one
//! transaction.

use super::store::Store;
use crate::error::{Error, Result, ResultExt};
use rusqlite::{params, OptionalExtension};

/// Store one suite run; returns its id. When the store cannot take it, the run is kept in a
/// spool file beside the store (see [`super::spool`]) and the error says where.
pub fn save(
    store: &mut Store,
    suite: &str,
    created_at: &str,
    summary: &serde_json::Value,
    series: &[(String, Vec<u64>)],
) -> Result<i64> {
    save_with(store, suite, created_at, summary, series, |_, _| Ok(()))
}

/// [`save`], and `also` writes more rows in the run's transaction (given the new id) before it
/// commits: a study records the run's cell this way. A spooled run is kept without them.
pub fn save_with(
    store: &mut Store,
    suite: &str,
    created_at: &str,
    summary: &serde_json::Value,
    series: &[(String, Vec<u64>)],
    also: impl FnOnce(&rusqlite::Transaction<'_>, i64) -> Result<()>,
) -> Result<i64> {
    super::spool::test_fill();
    save_in(store, suite, created_at, summary, series, also).map_err(|e| {
        super::spool::keep(
            store.path(),
            e,
            &format!("{suite} run"),
            |s| save_in(s, suite, created_at, summary, series, |_, _| Ok(())),
            || {
                let series: serde_json::Map<_, _> = series
                    .iter()
                    .map(|(n, v)| (n.clone(), v.as_slice().into()))
                    .collect();
                Ok(serde_json::json!({
                    "kind": suite, "created_at": created_at, "summary": summary, "series": series,
                }))
            },
        )
    })
}

/// [`save_with`] for a suite run given as its serialisable type (no series).
pub fn save_serialized(
    store: &mut Store,
    suite: &str,
    created_at: &str,
    run: &impl serde::Serialize,
    also: impl FnOnce(&rusqlite::Transaction<'_>, i64) -> Result<()>,
) -> Result<i64> {
    let v = serde_json::to_value(run).map_err(|e| Error::failed(format!("{suite} run: {e}")))?;
    save_with(store, suite, created_at, &v, &[], also)
}

fn save_in(
    store: &mut Store,
    suite: &str,
    created_at: &str,
    summary: &serde_json::Value,
    series: &[(String, Vec<u64>)],
    also: impl FnOnce(&rusqlite::Transaction<'_>, i64) -> Result<()>,
) -> Result<i64> {
    let conn = store.conn_mut();
    let tx = super::guard::begin_write(conn)?;
    let json = serde_json::to_string(summary).run_err("results store: summary")?;
    tx.execute(
        "INSERT INTO runs (created_at, workload, engine, ops, errors, summary, kind)
         VALUES (?2, ?1, '', 0, 0, ?3, ?1)",
        params![suite, created_at, json],
    )
    .run_err("results store: insert suite run")?;
    let id = tx.last_insert_rowid();
    {
        let mut stmt = tx
            .prepare("INSERT INTO suite_series VALUES (?1, ?2, ?3)")
            .run_err("results store")?;
        for (name, values) in series {
            let blob: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
            stmt.execute(params![id, name, blob])
                .run_err("results store: insert series")?;
        }
    }
    also(&tx, id)?;
    tx.commit().run_err("results store: COMMIT")?;
    Ok(id)
}

/// [`load`], the summary read as the suite's run type `T`.
pub fn load_as<T: serde::de::DeserializeOwned>(
    store: &mut Store,
    suite: &str,
    id: Option<i64>,
) -> Result<(i64, T)> {
    let (id, v) = load(store, suite, id)?;
    let run = serde_json::from_value(v)
        .map_err(|e| Error::failed(format!("results store: {suite} run {id}: {e}")))?;
    Ok((id, run))
}

/// The summary of suite run `id` (or the latest run of `suite` when `id` is None).
pub fn load(store: &mut Store, suite: &str, id: Option<i64>) -> Result<(i64, serde_json::Value)> {
    let path = store.path().display().to_string();
    let conn = store.conn_mut();
    let row: Option<(i64, String)> = match id {
        Some(id) => conn
            .query_row(
                "SELECT id, summary FROM runs WHERE id = ?1 AND kind = ?2",
                params![id, suite],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional(),
        None => conn
            .query_row(
                "SELECT id, summary FROM runs WHERE kind = ?1 ORDER BY id DESC LIMIT 1",
                params![suite],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional(),
    }
    .run_err("results store")?;
    let (id, text) = row.ok_or_else(|| {
        Error::input(format!(
            "--show: no {suite} run{} in {path}",
            id.map(|i| format!(" with id {i}")).unwrap_or_default()
        ))
    })?;
    let v = serde_json::from_str(&text).run_err(format!("results store: {suite} run {id}"))?;
    Ok((id, v))
}

/// A stored result's JSON as shown and sent: with its id in the store (suite kinds store 0 or
/// nothing there) and its `tool_version` in the one current form (older durability and models
/// results stored the bare version, see [`crate::tool_version_of`]).
pub fn with_identity(id: i64, v: &mut serde_json::Value) {
    if let Some(o) = v.as_object_mut() {
        o.insert("id".into(), id.into());
        if let Some(t) = o.get("tool_version").and_then(|t| t.as_str()) {
            let t = crate::tool_version_of(t);
            o.insert("tool_version".into(), t.into());
        }
    }
}

/// Series `name` of run `id` (empty if absent).
pub fn series(store: &mut Store, id: i64, name: &str) -> Result<Vec<u64>> {
    let blob: Option<Vec<u8>> = store
        .conn_mut()
        .query_row(
            "SELECT data FROM suite_series WHERE run_id = ?1 AND name = ?2",
            params![id, name],
            |r| r.get(0),
        )
        .optional()
        .run_err("results store")?;
    Ok(blob
        .unwrap_or_default()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_and_series_round_trip() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.db")).unwrap();
        let v = serde_json::json!({"cells": 2});
        let id = save(
            &mut store,
            "flashbench",
            "now",
            &v,
            &[("a".into(), vec![1, 2, 3])],
        )
        .unwrap();
        assert_eq!(
            load(&mut store, "flashbench", None).unwrap(),
            (id, v.clone())
        );
        assert_eq!(load(&mut store, "flashbench", Some(id)).unwrap().1, v);
        assert!(load(&mut store, "storage", None).is_err());
        assert_eq!(series(&mut store, id, "a").unwrap(), vec![1, 2, 3]);
        assert!(series(&mut store, id, "b").unwrap().is_empty());
    }

    #[test]
    fn shown_results_carry_their_id_and_the_current_version_form() {
        let mut old = serde_json::json!({"id": 0, "tool_version": "0.1.0", "seed": 7});
        with_identity(8, &mut old);
        assert_eq!(
            old,
            serde_json::json!({"id": 8, "tool_version": "pocketbench 0.1.0", "seed": 7})
        );
        let mut new = serde_json::json!({"tool_version": "pocketbench 0.1.0"});
        with_identity(3, &mut new);
        assert_eq!(
            new,
            serde_json::json!({"id": 3, "tool_version": "pocketbench 0.1.0"})
        );
    }
}

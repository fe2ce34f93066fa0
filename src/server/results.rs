//! Submitted results in the server's database: storing one (idempotent by content hash, with
//! its category values and the per-model statistics marked stale, in one transaction), listing
//! and reading them back.

use super::db::{transaction, Db, Row, Sql, Value};
use crate::error::Result;
use crate::fleet::submission::{content_hash, Submission};
use serde::Serialize;

/// The most results one listing returns (`limit`).
pub const MAX_LIST: i64 = 1000;

/// Where a submission went.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Stored {
    pub id: i64,
    /// False when the same result was stored before (its id is returned).
    pub created: bool,
}

/// Store `s` (checked by [`crate::fleet::result_schema::parse`]) with its ranked figures
/// `metrics` (checked by [`super::categories::extract`]), submitted by token `submitter` at
/// `now_ms` (Unix milliseconds). `allow` runs first in the same transaction (the submitter's
/// rate limit, [`super::ratelimit::spend_in`]): when it answers seconds to wait, nothing is
/// stored and they are returned as `Err`. One transaction, so one commit, per submission.
pub fn insert(
    db: &Db,
    s: &Submission,
    metrics: &[(String, f64)],
    submitter: &str,
    now_ms: i64,
    allow: impl FnOnce(&mut dyn Sql) -> Result<Option<u64>>,
) -> Result<std::result::Result<Stored, u64>> {
    let hash = content_hash(&s.kind, &s.result);
    let device = serde_json::to_string(&s.device).unwrap_or_default();
    let result = serde_json::to_string(&s.result).unwrap_or_default();
    let d = &s.device;
    let created_at = s
        .result
        .get("created_at")
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string();
    let tool = s.result["tool_version"].as_str().unwrap_or("").to_string();
    let mut c = db.write()?;
    transaction(&mut **c, |c| {
        if let Some(wait) = allow(c)? {
            return Ok(Err(wait));
        }
        let row = c.query(
            "INSERT INTO results (hash, submitted_at, kind, model, manufacturer, soc, os, kernel,
                 core_layout, storage_model, file_system, mount_options, tool_version, created_at,
                 submitter, device, result)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
             ON CONFLICT (hash) DO NOTHING RETURNING id",
            &[
                hash.as_str().into(),
                now_ms.into(),
                s.kind.as_str().into(),
                d.model.as_str().into(),
                d.manufacturer.as_str().into(),
                d.soc.as_str().into(),
                d.os.as_str().into(),
                d.kernel.as_str().into(),
                d.core_layout.as_str().into(),
                d.storage.disk_model.as_str().into(),
                d.storage.file_system.as_str().into(),
                d.storage.mount_options.as_str().into(),
                tool.as_str().into(),
                created_at.as_str().into(),
                submitter.into(),
                device.as_str().into(),
                result.as_str().into(),
            ],
        )?;
        let Some(id) = row.first().map(|r| r.int(0)) else {
            let id = super::db::scalar(
                c,
                "SELECT id FROM results WHERE hash = $1",
                &[hash.as_str().into()],
            )?
            .unwrap_or(0);
            return Ok(Ok(Stored { id, created: false }));
        };
        // A run replaying a published trace adds that trace's figures.
        let mut figures = metrics.to_vec();
        if s.kind == "run" {
            figures.extend(super::traces::board::link(c, id, &d.model, &s.result)?);
        }
        if !figures.is_empty() {
            add_metrics(c, id, &d.model, &figures, now_ms)?;
        }
        Ok(Ok(Stored { id, created: true }))
    })
}

/// Result `id`'s figures in `metrics`, with each of its categories' statistics for `model`
/// marked stale: two statements whatever the number of figures (each a row per figure).
fn add_metrics(
    c: &mut dyn Sql,
    id: i64,
    model: &str,
    metrics: &[(String, f64)],
    now_ms: i64,
) -> Result<()> {
    // $1 the result, $2 the model, $3 the time; then a category and a value per figure.
    let mut params: Vec<Value> = vec![id.into(), model.into(), now_ms.into()];
    let mut rows = Vec::with_capacity(metrics.len());
    for (category, value) in metrics {
        let n = params.len();
        rows.push(format!("($1, ${}, $2, ${}, $3)", n + 1, n + 2));
        params.push(category.as_str().into());
        params.push((*value).into());
    }
    c.execute(
        &format!(
            "INSERT INTO metrics (result_id, category, model, value, submitted_at) VALUES {}",
            rows.join(", ")
        ),
        &params,
    )?;
    // One row per category (an upsert may not touch a row twice).
    let categories: std::collections::BTreeSet<&str> =
        metrics.iter().map(|(c, _)| c.as_str()).collect();
    let mut params: Vec<Value> = vec![model.into(), now_ms.into()];
    let mut rows = Vec::with_capacity(categories.len());
    for category in categories {
        rows.push(format!("(${}, $1, 1, 0, $2, 0, 0, 0, 0)", params.len() + 1));
        params.push(category.into());
    }
    c.execute(
        &format!(
            "INSERT INTO model_stats (category, model, version, computed, first_seen, total,
                 kept, mean, stddev)
             VALUES {}
             ON CONFLICT (category, model) DO UPDATE SET version = model_stats.version + 1,
                 first_seen = CASE WHEN excluded.first_seen < model_stats.first_seen
                              THEN excluded.first_seen ELSE model_stats.first_seen END",
            rows.join(", ")
        ),
        &params,
    )?;
    Ok(())
}
/// One stored result as listings show it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ResultRow {
    pub id: i64,
    /// Unix milliseconds.
    pub submitted_at: i64,
    pub kind: String,
    pub model: String,
    pub manufacturer: String,
    pub soc: String,
    pub os: String,
    pub storage_model: String,
    pub file_system: String,
    pub tool_version: String,
    /// When the result was measured (its own `created_at`).
    pub created_at: String,
    /// Its values in ranking categories.
    pub metrics: Vec<Metric>,
}

/// A result's value in one ranking category.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Metric {
    pub category: String,
    pub value: f64,
}

fn metrics(c: &mut dyn super::db::Sql, id: i64) -> Result<Vec<Metric>> {
    Ok(c.query(
        "SELECT category, value FROM metrics WHERE result_id = $1 AND category NOT LIKE 'trace:%'
         ORDER BY category",
        &[id.into()],
    )?
    .iter()
    .map(|m| Metric {
        category: m.text(0),
        value: m.real(1),
    })
    .collect())
}

const COLUMNS: &str = "r.id, r.submitted_at, r.kind, r.model, r.manufacturer, r.soc, r.os, \
                       r.storage_model, r.file_system, r.tool_version, r.created_at";

fn row(r: &Row) -> ResultRow {
    ResultRow {
        id: r.int(0),
        submitted_at: r.int(1),
        kind: r.text(2),
        model: r.text(3),
        manufacturer: r.text(4),
        soc: r.text(5),
        os: r.text(6),
        storage_model: r.text(7),
        file_system: r.text(8),
        tool_version: r.text(9),
        created_at: r.text(10),
        metrics: Vec::new(),
    }
}

/// Results newest first, optionally of one model and/or with a value in one category.
pub fn list(
    db: &Db,
    model: Option<&str>,
    category: Option<&str>,
    limit: i64,
    offset: i64,
) -> Result<Vec<ResultRow>> {
    let mut c = db.read()?;
    let page = [limit.clamp(0, MAX_LIST).into(), offset.max(0).into()];
    let rows = match (model, category) {
        (None, None) => c.query(
            &format!("SELECT {COLUMNS} FROM results r ORDER BY r.id DESC LIMIT $1 OFFSET $2"),
            &page,
        )?,
        (Some(m), None) => c.query(
            &format!(
                "SELECT {COLUMNS} FROM results r WHERE r.model = $3 ORDER BY r.id DESC LIMIT $1 OFFSET $2"
            ),
            &[page[0].clone(), page[1].clone(), m.into()],
        )?,
        (None, Some(cat)) => c.query(
            &format!(
                "SELECT {COLUMNS} FROM results r JOIN metrics m ON m.result_id = r.id
                 WHERE m.category = $3 ORDER BY r.id DESC LIMIT $1 OFFSET $2"
            ),
            &[page[0].clone(), page[1].clone(), cat.into()],
        )?,
        (Some(mo), Some(cat)) => c.query(
            &format!(
                "SELECT {COLUMNS} FROM results r JOIN metrics m ON m.result_id = r.id
                 WHERE m.category = $3 AND m.model = $4 ORDER BY r.id DESC LIMIT $1 OFFSET $2"
            ),
            &[page[0].clone(), page[1].clone(), cat.into(), mo.into()],
        )?,
    };
    let mut out: Vec<ResultRow> = rows.iter().map(row).collect();
    for r in &mut out {
        r.metrics = metrics(&mut **c, r.id)?;
    }
    Ok(out)
}

/// One result in full: its row, the device as submitted and the result itself.
#[derive(Clone, Debug, Serialize)]
pub struct FullResult {
    #[serde(flatten)]
    pub row: ResultRow,
    pub device: serde_json::Value,
    pub result: serde_json::Value,
}

/// The start of result `id`'s answer as `GET /api/v1/results/{id}` writes it (its row and the
/// device as stored, then `"result":`), to be followed by the stored result's text and `}`
/// ([`super::stream`]); None if there is no such result.
pub fn head(db: &Db, id: i64) -> Result<Option<String>> {
    let mut c = db.read()?;
    let rows = c.query(
        &format!("SELECT {COLUMNS}, r.device FROM results r WHERE r.id = $1"),
        &[Value::Int(id)],
    )?;
    let Some(r) = rows.first() else {
        return Ok(None);
    };
    let mut row = row(r);
    row.metrics = metrics(&mut **c, id)?;
    let mut text = serde_json::to_string(&row).unwrap_or_default();
    text.pop(); // the row's closing brace
    let device = r.text(11);
    text.push_str(",\"device\":");
    text.push_str(if device.is_empty() { "null" } else { &device });
    text.push_str(",\"result\":");
    Ok(Some(text))
}

/// Result `id` in full, its stored result read (null when it is past
/// [`crate::fleet::result_schema::MAX_RESULT_BYTES`], which only a result stored before the
/// bound can be: it is not parsed, whatever its size).
pub fn get(db: &Db, id: i64) -> Result<Option<FullResult>> {
    let mut c = db.read()?;
    let rows = c.query(
        &format!("SELECT {COLUMNS}, r.device, r.result FROM results r WHERE r.id = $1"),
        &[Value::Int(id)],
    )?;
    let Some(r) = rows.first() else {
        return Ok(None);
    };
    let mut full = FullResult {
        row: row(r),
        device: serde_json::from_str(&r.text(11)).unwrap_or_default(),
        result: Some(r.text(12))
            .filter(|t| t.len() <= crate::fleet::result_schema::MAX_RESULT_BYTES)
            .and_then(|t| serde_json::from_str(&t).ok())
            .unwrap_or_default(),
    };
    full.row.metrics = metrics(&mut **c, id)?;
    Ok(Some(full))
}

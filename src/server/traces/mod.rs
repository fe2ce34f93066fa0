//! Published app traces: a device owner's trace uploaded once (`pocketbench submit --trace`),
//! kept in the server's database, replayed by the fleet and ranked per device model.
//!
//! * [`upload`]: the upload written to a file as it arrives, then read whole — header, every
//!   record, the end block's digest — before anything is stored
//!   ([`crate::fleet::trace_check`]); its `trace stats` made on the way; the anonymisation rule.
//! * this module: a checked trace stored (one transaction: its row, then its bytes in
//!   [`CHUNK`]-byte rows; addressed by the SHA-256 of its bytes, so the same trace twice is one
//!   entry) and read back (the gallery, one trace, a chunk).
//! * [`board`]: a `run` result replaying a published trace linked to it (busy time and p95 as
//!   ranked figures of the trace and engine setup), and each setup's ranking.
//! * [`routes`]: the JSON API's trace endpoints.

pub mod board;
pub mod routes;
pub mod upload;

use super::db::{transaction, Db, Row, Value};
use crate::error::{Error, Result};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;

/// Bytes of a trace per stored row (and per query of a download).
pub const CHUNK: usize = 256 * 1024;
/// The longest title and description, in bytes.
pub use crate::fleet::traces::{MAX_DESCRIPTION, MAX_TITLE};
/// Gallery rows per page, by default and at most.
pub const PAGE: i64 = 50;
pub const MAX_PAGE: i64 = 500;

/// What the publisher says about a trace.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    pub title: String,
    pub description: String,
    /// The publisher publishes a trace that is not anonymised, knowingly.
    pub unanonymised: bool,
}

/// One published trace as the gallery lists it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct TraceRow {
    pub sha256: String,
    /// The trace's own digest (what a replay's result carries as `trace.digest`).
    pub digest: String,
    pub title: String,
    pub description: String,
    /// What was anonymised (`literals,integers,…`), `generated` (no app's data in it), or
    /// `no` (published unanonymised on purpose).
    pub anonymised: String,
    /// The log format it was imported from, or `generated`.
    pub source: String,
    pub bytes: i64,
    pub statements: i64,
    pub connections: i64,
    /// Statements by first keyword.
    pub mix: BTreeMap<String, u64>,
    /// Unix milliseconds.
    pub submitted_at: i64,
    pub submitter: String,
    /// Results linked to it, and the device models they came from.
    pub runs: i64,
    pub devices: i64,
}

const COLUMNS: &str = "sha256, digest, title, description, anonymised, source, bytes, statements, \
                       connections, mix, submitted_at, submitter, runs, devices, id";

fn row(r: &Row) -> (i64, TraceRow) {
    (
        r.int(14),
        TraceRow {
            sha256: r.text(0),
            digest: r.text(1),
            title: r.text(2),
            description: r.text(3),
            anonymised: r.text(4),
            source: r.text(5),
            bytes: r.int(6),
            statements: r.int(7),
            connections: r.int(8),
            mix: serde_json::from_str(&r.text(9)).unwrap_or_default(),
            submitted_at: r.int(10),
            submitter: r.text(11),
            runs: r.int(12),
            devices: r.int(13),
        },
    )
}

/// Where a published trace went.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct Stored {
    pub sha256: String,
    /// False when the same bytes were published before (that entry is kept as it was).
    pub created: bool,
}

/// Store the checked trace in `file` with `meta`, published by token `submitter` at `now_ms`:
/// its row and its bytes in one transaction, or nothing (the same bytes already there: that
/// entry, `created` false).
pub fn store(
    db: &Db,
    checked: &crate::fleet::trace_check::Checked,
    file: &std::path::Path,
    meta: &Meta,
    submitter: &str,
    now_ms: i64,
) -> Result<Stored> {
    let c = &checked;
    let chunks = (c.bytes as usize).div_ceil(CHUNK) as i64;
    let mut conn = db.write()?;
    transaction(&mut **conn, |t| {
        let row = t.query(
            "INSERT INTO traces (sha256, digest, title, description, anonymised, source, bytes,
                 chunks, statements, connections, mix, header, stats, stats_text, submitter,
                 submitted_at, runs, devices)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, 0, 0)
             ON CONFLICT (sha256) DO NOTHING RETURNING id",
            &[
                c.sha256.as_str().into(),
                c.digest.as_str().into(),
                meta.title.as_str().into(),
                meta.description.as_str().into(),
                c.anonymised.as_str().into(),
                c.source.as_str().into(),
                (c.bytes as i64).into(),
                chunks.into(),
                (c.statements as i64).into(),
                (c.connections as i64).into(),
                serde_json::to_string(&c.mix).unwrap_or_default().into(),
                c.header.as_str().into(),
                c.stats.as_str().into(),
                c.stats_text.as_str().into(),
                submitter.into(),
                now_ms.into(),
            ],
        )?;
        let Some(id) = row.first().map(|r| r.int(0)) else {
            return Ok(Stored {
                sha256: c.sha256.clone(),
                created: false,
            });
        };
        let mut f = std::fs::File::open(file)
            .map_err(|e| Error::failed(format!("reading the kept upload: {e}")))?;
        let mut buf = vec![0u8; CHUNK];
        for idx in 0..chunks {
            let n = read_full(&mut f, &mut buf)
                .map_err(|e| Error::failed(format!("reading the kept upload: {e}")))?;
            t.execute(
                "INSERT INTO trace_chunks (trace_id, idx, data) VALUES ($1, $2, $3)",
                &[id.into(), idx.into(), Value::Blob(buf[..n].to_vec())],
            )?;
        }
        Ok(Stored {
            sha256: c.sha256.clone(),
            created: true,
        })
    })
}

/// Fill `buf` from `r` (less only at its end); the bytes read.
fn read_full(r: &mut impl Read, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match r.read(&mut buf[n..])? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

/// The gallery's filters.
#[derive(Clone, Debug, Default)]
pub struct Filter {
    /// Words of the title or description (case-insensitive), as typed.
    pub q: String,
    /// The log format it came from (`jsonl`, `android-logcat`, …, or `generated`).
    pub source: String,
    /// `recent` (newest first, the default) or `runs` (most replayed first).
    pub sort: String,
}

/// A LIKE pattern matching `text` anywhere, its `%`, `_` and `\` taken literally.
fn contains(text: &str) -> String {
    let mut p = String::from("%");
    for ch in text.to_lowercase().chars() {
        if matches!(ch, '%' | '_' | '\\') {
            p.push('\\');
        }
        p.push(ch);
    }
    p.push('%');
    p
}

/// One page of the gallery under `f` (`limit` rows from `offset`), and how many traces match.
pub fn list(db: &Db, f: &Filter, limit: i64, offset: i64) -> Result<(Vec<TraceRow>, i64)> {
    let mut wheres = Vec::new();
    let mut params: Vec<Value> = Vec::new();
    if !f.q.is_empty() {
        params.push(contains(&f.q).into());
        wheres.push(format!(
            "(lower(title) LIKE ${n} ESCAPE '\\' OR lower(description) LIKE ${n} ESCAPE '\\')",
            n = params.len()
        ));
    }
    if !f.source.is_empty() {
        params.push(f.source.as_str().into());
        wheres.push(format!("source = ${}", params.len()));
    }
    let filter = if wheres.is_empty() {
        String::new()
    } else {
        format!("WHERE {}", wheres.join(" AND "))
    };
    let order = if f.sort == "runs" {
        "runs DESC, id DESC"
    } else {
        "id DESC"
    };
    let mut c = db.read()?;
    let total = super::db::scalar(
        &mut **c,
        &format!("SELECT COUNT(*) FROM traces {filter}"),
        &params,
    )?
    .unwrap_or(0);
    let n = params.len();
    params.push(limit.clamp(0, MAX_PAGE).into());
    params.push(offset.max(0).into());
    let rows = c.query(
        &format!(
            "SELECT {COLUMNS} FROM traces {filter} ORDER BY {order} LIMIT ${} OFFSET ${}",
            n + 1,
            n + 2
        ),
        &params,
    )?;
    Ok((rows.iter().map(|r| row(r).1).collect(), total))
}

/// One published trace in full: its row, header, statistics (JSON and as `trace stats` prints
/// them) and its number in the database.
#[derive(Clone, Debug)]
pub struct Found {
    pub id: i64,
    pub row: TraceRow,
    pub header: serde_json::Value,
    pub stats: serde_json::Value,
    pub stats_text: String,
}

/// The trace whose bytes hash to `sha256`, if it was published.
pub fn find(db: &Db, sha256: &str) -> Result<Option<Found>> {
    let rows = db.read()?.query(
        &format!("SELECT {COLUMNS}, header, stats, stats_text FROM traces WHERE sha256 = $1"),
        &[sha256.into()],
    )?;
    Ok(rows.first().map(|r| {
        let (id, row) = row(r);
        Found {
            id,
            row,
            header: serde_json::from_str(&r.text(15)).unwrap_or_default(),
            stats: serde_json::from_str(&r.text(16)).unwrap_or_default(),
            stats_text: r.text(17),
        }
    }))
}

/// Traces published (`/healthz`, the bench).
pub fn count(db: &Db) -> Result<i64> {
    Ok(super::db::scalar(&mut **db.read()?, "SELECT COUNT(*) FROM traces", &[])?.unwrap_or(0))
}

/// Whether `s` is a SHA-256 as the traces' addresses write it (64 lower-case hex digits).
pub fn is_sha256(s: &str) -> bool {
    s.len() == 64
        && s.bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

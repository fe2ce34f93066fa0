//! `pocketbench submit`: send results from the local store to a results server, each with the
//! identity of the device that measured it (the `device` a pulled run carries, else this
//! machine's, probed where the result's files were). The local store remembers what went to
//! which server, so `--all-new` sends only what that server has not got; the server's content
//! hash makes sending twice harmless anyway. A workload run goes with its latency histograms
//! (HdrHistogram log) when it kept its per-operation samples.

use super::client::{Client, Response};
use super::submission::{Device, Submission, SCHEMA};
use crate::device::probe::DeviceInfo;
use crate::error::{Error, Result, ResultExt};
use crate::results::store::Store;
use rusqlite::{params, OptionalExtension};
use serde::Serialize;

const TABLE: &str = "CREATE TABLE IF NOT EXISTS submissions (
    run_id INTEGER NOT NULL,
    server TEXT NOT NULL,
    remote_id INTEGER NOT NULL,
    submitted_at TEXT NOT NULL,
    PRIMARY KEY (run_id, server)
)";

/// One result sent.
#[derive(Clone, Debug, Serialize)]
pub struct Sent {
    pub local_id: i64,
    pub kind: String,
    pub remote_id: i64,
    /// False when the server had it already.
    pub created: bool,
    pub url: String,
}

/// The submission of stored result `id`.
pub fn build(store: &Store, id: i64) -> Result<Submission> {
    let row: Option<(String, String)> = store
        .conn()
        .query_row("SELECT kind, summary FROM runs WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()
        .run_err("results store")?;
    let (kind, summary) = row.ok_or_else(|| {
        Error::input(format!(
            "RUN_ID {id}: no result with that id in {}",
            store.path().display()
        ))
    })?;
    let mut result: serde_json::Value =
        serde_json::from_str(&summary).run_err(format!("results store: result {id}"))?;
    crate::results::suites::with_identity(id, &mut result);
    if let Some(o) = result.as_object_mut() {
        if kind == "run" {
            if let Some(log) = latency_log(store, id)? {
                o.insert("latency_hlog".into(), log.into());
            }
        }
    }
    // A run pulled from a device carries the device's probe; else this machine is probed
    // where the result's files were.
    let pulled = result
        .get("device")
        .and_then(|d| serde_json::from_value::<DeviceInfo>(d.clone()).ok());
    let info = pulled.unwrap_or_else(|| {
        let dir = result.pointer("/settings/dir").and_then(|d| d.as_str());
        crate::device::probe::local(dir.unwrap_or("."))
    });
    let device = Device::from_info(&info);
    Ok(Submission {
        schema: SCHEMA,
        kind,
        device,
        result,
    })
}

/// The whole run's service-time distribution per operation kind (µs), as an HdrHistogram log
/// (format 1.3: one tagged, compressed histogram per kind) — the histogram itself, not only the
/// summary's percentiles. None when the run kept no per-operation samples.
fn latency_log(store: &Store, id: i64) -> Result<Option<String>> {
    use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
    let mut by_kind: std::collections::BTreeMap<String, hdrhistogram::Histogram<u64>> =
        std::collections::BTreeMap::new();
    let mut span_ns = (u64::MAX, 0u64);
    crate::export::samples::each(store, id, |kind, start, service| {
        let h = by_kind
            .entry(kind.to_string())
            .or_insert_with(crate::stats::histogram);
        h.saturating_record((service / 1000).max(1));
        span_ns = (span_ns.0.min(start), span_ns.1.max(start + service));
    })?;
    if by_kind.is_empty() {
        return Ok(None);
    }
    let length = std::time::Duration::from_nanos(span_ns.1.saturating_sub(span_ns.0));
    let mut bytes = format!(
        "#[Histogram log format version 1.3]\n#[pocketbench result {id}: service time per operation kind, µs]\n\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n"
    )
    .into_bytes();
    let mut serializer = hdrhistogram::serialization::V2DeflateSerializer::new();
    let fail = |e: String| Error::failed(format!("result {id}: latency histogram: {e}"));
    {
        let mut log = IntervalLogWriterBuilder::new()
            .begin_log_with(&mut bytes, &mut serializer)
            .map_err(|e| fail(e.to_string()))?;
        for (kind, h) in &by_kind {
            let tag =
                Tag::new(kind).ok_or_else(|| fail(format!("kind {kind:?} cannot be a tag")))?;
            log.write_histogram(h, std::time::Duration::ZERO, length, Some(tag))
                .map_err(|e| fail(e.to_string()))?;
        }
    }
    Ok(Some(String::from_utf8_lossy(&bytes).into_owned()))
}

/// A result the server would not take: its answer, which does not stop the others.
#[derive(Clone, Debug, Serialize)]
pub struct Refused {
    pub local_id: i64,
    pub kind: String,
    pub status: u16,
    pub message: String,
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "result {} ({}): the server answered {}: {}",
            self.local_id, self.kind, self.status, self.message
        )
    }
}

/// Send `s` (stored locally as `id`): a result the server refuses is an error.
pub fn send(client: &Client, s: &Submission, id: i64) -> Result<Sent> {
    offer(client, s, id)?.map_err(|r| Error::failed(r.to_string()))
}

/// Send `s` (stored locally as `id`); a 429 is waited out (Retry-After, at most three times).
/// The outer error stops everything (no server, a refused token); the inner one is this
/// result's refusal.
pub fn offer(
    client: &Client,
    s: &Submission,
    id: i64,
) -> Result<std::result::Result<Sent, Refused>> {
    let body = serde_json::to_vec(s).run_err("submission")?;
    let mut tries = 0;
    let r: Response = loop {
        let r = client.post("/api/v1/results", &body)?;
        if r.status == 429 && tries < 3 {
            tries += 1;
            std::thread::sleep(std::time::Duration::from_secs(
                r.retry_after.unwrap_or(5).min(60),
            ));
            continue;
        }
        break r;
    };
    match r.status {
        200 | 201 => {
            let v: serde_json::Value = r.json()?;
            let remote_id = v.get("id").and_then(|i| i.as_i64()).unwrap_or(0);
            Ok(Ok(Sent {
                local_id: id,
                kind: s.kind.clone(),
                remote_id,
                created: r.status == 201,
                url: format!("{}/results/{remote_id}", client.base()),
            }))
        }
        401 | 403 => Err(Error::input(format!(
            "--token: the server refused it ({}: {})",
            r.status,
            r.message()
        ))),
        status => Ok(Err(Refused {
            local_id: id,
            kind: s.kind.clone(),
            status,
            message: r.message(),
        })),
    }
}

/// The ids to send: those given, or (`all_new`) every result of a kind servers take
/// ([`super::submission::KINDS`]: an `advise` result's advice stays local) that this server has
/// not got.
pub fn pending(store: &Store, server: &str, ids: &[i64], all_new: bool) -> Result<Vec<i64>> {
    store.conn().execute(TABLE, []).run_err("results store")?;
    if !all_new {
        return Ok(ids.to_vec());
    }
    let kinds = super::submission::KINDS
        .iter()
        .map(|k| format!("'{k}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let mut st = store
        .conn()
        .prepare(&format!(
            "SELECT id FROM runs WHERE id NOT IN (SELECT run_id FROM submissions WHERE server = ?1)
             AND kind IN ({kinds}) ORDER BY id"
        ))
        .run_err("results store")?;
    let rows = st
        .query_map([server], |r| r.get(0))
        .run_err("results store")?
        .collect::<rusqlite::Result<Vec<i64>>>()
        .run_err("results store")?;
    Ok(rows)
}

/// Remember that result `id` went to `server` as `remote_id`.
pub fn remember(store: &Store, server: &str, sent: &Sent) -> Result<()> {
    store.conn().execute(TABLE, []).run_err("results store")?;
    store
        .conn()
        .execute(
            "INSERT OR REPLACE INTO submissions VALUES (?1, ?2, ?3, ?4)",
            params![
                sent.local_id,
                server,
                sent.remote_id,
                crate::platform::clock::utc_now()
            ],
        )
        .run_err("results store")?;
    Ok(())
}

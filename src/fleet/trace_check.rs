//! A published trace as the results server reads it on arrival, before anything is stored
//! ([`check`], with a fuzz target): the SHA-256 of its bytes (its address), its header (the
//! limits of docs/limits.md), every record (each block's checksum, each operation against the
//! header's data model and the limits) and the end block's counts and digest, its `trace stats`
//! computed on the way (on a scratch SQLite connection that refuses ATTACH, code loading and
//! process-wide PRAGMAs: [`crate::workload::untrusted`]). A trace that cannot be read back
//! whole is refused with the reader's own words, the file's name left out. The anonymisation
//! rule is [`super::traces::anonymised`].

use super::traces::{anonymised, sha256_of};
use crate::workload::import::stats::file::{render, TraceFeed};
use crate::workload::trace::{TraceItem, TraceReader};
use std::collections::BTreeMap;
use std::path::Path;

/// What [`check`] found in a trace that reads back whole.
#[derive(Clone, Debug, Default)]
pub struct Checked {
    pub sha256: String,
    pub digest: String,
    pub bytes: u64,
    /// The header as JSON text.
    pub header: String,
    pub anonymised: String,
    pub source: String,
    /// `trace stats --json` and `trace stats` of it.
    pub stats: String,
    pub stats_text: String,
    pub statements: u64,
    pub connections: u64,
    pub mix: BTreeMap<String, u64>,
}

/// Read the trace in `path` whole, as [`check`] describes; a refusal says why, in one line.
pub fn check(path: &Path, unanonymised: bool) -> Result<Checked, String> {
    let shown = path.display().to_string();
    let own = |e: crate::error::Error| {
        let m = e.to_string();
        let m = m.strip_prefix(&format!("{shown}: ")).unwrap_or(&m);
        crate::limits::one_line(&m.replace(&shown, "the trace"))
    };
    let (sha256, bytes) = sha256_of(path).map_err(|e| format!("reading the upload: {e}"))?;
    if bytes == 0 {
        return Err("the body is empty (send the trace's bytes)".into());
    }
    let mut reader = TraceReader::open(path).map_err(own)?;
    let header = reader.header().clone();
    let anonymised = anonymised(&header, unanonymised)
        .map_err(|why| why.replace("--unanonymised", "unanonymised=yes"))?;
    let mut feed = TraceFeed::new();
    while let Some(item) = reader.next_item().map_err(own)? {
        match item {
            TraceItem::Load(op) => feed.load(&op),
            TraceItem::Run(t) => feed.run(&t),
        }
    }
    let totals = reader
        .totals()
        .ok_or_else(|| "the trace ends without its end block".to_string())?;
    let stats = feed.finish(Path::new(&format!("{sha256}.pbt")), &header);
    Ok(Checked {
        sha256,
        digest: totals.digest_hex(),
        bytes,
        header: serde_json::to_string(&header).unwrap_or_default(),
        anonymised,
        source: header
            .import
            .as_ref()
            .map_or_else(|| "generated".to_string(), |i| i.format.clone()),
        stats: serde_json::to_string(&stats).unwrap_or_default(),
        stats_text: render(&stats),
        statements: stats.statements,
        connections: stats.connections,
        mix: stats.mix.clone(),
    })
}

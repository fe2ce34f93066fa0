//! A published trace as it arrives: written to a temporary file piece by piece (never whole in
//! memory; at most the server's `--max-body` bytes, at its body pace), then read whole before
//! anything is stored ([`crate::fleet::trace_check::check`]). The file is removed when the
//! request's answer is made, whatever the answer.

use super::super::http::{self, BodyPace, Reply, Req};
use std::io::Write;

/// Whether `rq` publishes a trace (`POST /api/v1/traces`).
pub fn is_upload(rq: &Req) -> bool {
    rq.method == "POST" && rq.path == ["api", "v1", "traces"]
}

/// Write the request's body to a temporary file as it arrives.
pub async fn spool(
    body: axum::body::Body,
    max_body: u64,
    pace: BodyPace,
) -> Result<tempfile::NamedTempFile, Reply> {
    let failed = |e: std::io::Error| {
        eprintln!("pocketbench serve: a temporary file for an upload: {e}");
        Reply::error(
            500,
            None,
            "the server could not keep the upload (see its log)",
        )
    };
    let file = tempfile::Builder::new()
        .prefix("pocketbench-upload-")
        .tempfile()
        .map_err(failed)?;
    // Small synchronous writes to a local file between awaits: they go to the page cache.
    let mut out = std::io::BufWriter::with_capacity(super::CHUNK, file.as_file());
    http::body_into(body, 0, max_body, pace, |data| out.write_all(data)).await?;
    out.flush().map_err(failed)?;
    drop(out);
    Ok(file)
}

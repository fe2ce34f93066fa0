//! The JSON API's trace endpoints (docs/server.md "Shared app traces"):
//!
//! | method and path | what |
//! |---|---|
//! | `POST /api/v1/traces?title=&description=&unanonymised=` (token) | publish the trace in the body: 201, or 200 for the same bytes again |
//! | `GET /api/v1/traces?q=&source=&sort=&limit=&offset=` | the gallery, one page |
//! | `GET /api/v1/traces/{sha256}?min_results=` | one trace: its row, header, statistics and each setup's rankings |
//! | `GET /api/v1/traces/{sha256}/file` | its bytes, streamed |

use super::super::http::{int_param, known_params, not_found, Reply, Req};
use super::super::{db_error, now_ms, State};
use super::{board, Filter, Meta};
use serde::Serialize;

/// The parameter `key`, at most `max` bytes, without NUL bytes.
fn text_param(rq: &Req, key: &str, max: usize) -> Result<String, Reply> {
    let v = rq.param(key).unwrap_or("").trim().to_string();
    if v.len() > max {
        return Err(Reply::error(
            400,
            Some(key),
            format!("{} bytes, more than {max}", v.len()),
        ));
    }
    if v.contains('\0') {
        return Err(Reply::error(400, Some(key), "contains a NUL byte"));
    }
    Ok(v)
}

/// `POST /api/v1/traces`: the body (already in a file) read whole, then stored.
pub fn publish(state: &State, rq: &Req) -> Result<Reply, Reply> {
    let who = state.authorise(rq)?;
    known_params(rq, &["title", "description", "unanonymised"])?;
    let title = text_param(rq, "title", super::MAX_TITLE)?;
    if title.is_empty() {
        return Err(Reply::error(
            400,
            Some("title"),
            "a published trace needs a title",
        ));
    }
    let unanonymised = match rq.param("unanonymised") {
        None | Some("no") => false,
        Some("yes") => true,
        Some(v) => {
            return Err(Reply::error(
                400,
                Some("unanonymised"),
                format!("{}: expected yes or no", crate::limits::escape(v)),
            ))
        }
    };
    let meta = Meta {
        title,
        description: text_param(rq, "description", super::MAX_DESCRIPTION)?,
        unanonymised,
    };
    let Some(file) = rq.upload.as_deref() else {
        return Err(Reply::error(400, Some("body"), "no trace in the body"));
    };
    // The allowance is spent before the trace is read: a refused upload costs a write too.
    state.spend(&who)?;
    let checked = crate::fleet::trace_check::check(file, meta.unanonymised)
        .map_err(|why| Reply::error(400, Some("trace"), why))?;
    let stored =
        super::store(&state.db, &checked, file, &meta, &who, now_ms()).map_err(db_error)?;
    let status = if stored.created { 201 } else { 200 };
    Ok(Reply::json(
        status,
        &serde_json::json!({"sha256": stored.sha256, "created": stored.created,
            "digest": checked.digest, "bytes": checked.bytes,
            "anonymised": checked.anonymised, "statements": checked.statements,
            "url": format!("/traces/{}", stored.sha256)}),
    ))
}

/// The gallery's query parameters.
pub const GALLERY_PARAMS: [&str; 5] = ["q", "source", "sort", "limit", "offset"];

/// The gallery's filter and page from `rq`'s query.
pub fn gallery_query(rq: &Req) -> Result<(Filter, i64, i64), Reply> {
    known_params(rq, &GALLERY_PARAMS)?;
    let sort = rq.param("sort").unwrap_or("recent").to_string();
    if sort != "recent" && sort != "runs" {
        return Err(Reply::error(
            400,
            Some("sort"),
            format!("{}: expected recent or runs", crate::limits::escape(&sort)),
        ));
    }
    let f = Filter {
        q: text_param(rq, "q", super::MAX_TITLE)?,
        source: text_param(rq, "source", 64)?,
        sort,
    };
    let limit = int_param(rq, "limit", super::PAGE)?.min(super::MAX_PAGE);
    Ok((f, limit, int_param(rq, "offset", 0)?))
}

#[derive(Serialize)]
struct Gallery {
    total: i64,
    limit: i64,
    offset: i64,
    traces: Vec<super::TraceRow>,
}

/// `GET /api/v1/traces`.
pub fn gallery(state: &State, rq: &Req) -> Result<Reply, Reply> {
    let (f, limit, offset) = gallery_query(rq)?;
    let (traces, total) = super::list(&state.db, &f, limit, offset).map_err(db_error)?;
    Ok(Reply::json(
        200,
        &Gallery {
            total,
            limit,
            offset,
            traces,
        },
    ))
}

/// The published trace `sha`, or a 404.
pub fn found(state: &State, sha: &str) -> Result<super::Found, Reply> {
    let missing = || not_found(format!("no published trace {}", crate::limits::escape(sha)));
    if !super::is_sha256(sha) {
        return Err(missing());
    }
    super::find(&state.db, sha)
        .map_err(db_error)?
        .ok_or_else(missing)
}

/// One trace as its page and its JSON show it.
#[derive(Serialize)]
pub struct OneTrace {
    #[serde(flatten)]
    pub row: super::TraceRow,
    pub header: serde_json::Value,
    pub stats: serde_json::Value,
    pub min_results: i64,
    pub rule: &'static str,
    pub setups: Vec<board::Board>,
}

/// Trace `sha` with its setups' rankings (models with at least `min_results` kept results).
pub fn one_trace(state: &State, rq: &Req, sha: &str) -> Result<(OneTrace, String), Reply> {
    known_params(rq, &["min_results"])?;
    let min = int_param(rq, "min_results", state.config.min_results)?;
    let f = found(state, sha)?;
    let setups = board::boards(&state.db, f.id, min).map_err(db_error)?;
    Ok((
        OneTrace {
            row: f.row,
            header: f.header,
            stats: f.stats,
            min_results: min,
            rule: "values more than 3 standard deviations from the model's mean are dropped",
            setups,
        },
        f.stats_text,
    ))
}

/// `GET /api/v1/traces/{sha256}`.
pub fn one(state: &State, rq: &Req, sha: &str) -> Result<Reply, Reply> {
    Ok(Reply::json(200, &one_trace(state, rq, sha)?.0))
}

/// `GET /api/v1/traces/{sha256}/file`: the stored bytes, a chunk per query.
pub fn file(state: &State, sha: &str) -> Result<Reply, Reply> {
    let f = found(state, sha)?;
    let mut r = Reply::stream(super::super::stream::Chunks::trace(
        state.db.clone(),
        state.stream_readers.clone(),
        f.id,
    ));
    r.content_type = "application/octet-stream";
    Ok(r)
}

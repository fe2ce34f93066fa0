//! HTTP plumbing between hyper (through axum) and the handlers: a request read into a [`Req`] (method,
//! decoded path segments and query, bearer token, body read under the layers' size limit) and a
//! [`Reply`] (status, content type, body) written back. JSON errors have one shape:
//! `{"error": {"field": "device.model", "message": "…"}}` (`field` only when one is to blame).
//! Query parameters are read by [`int_param`] and checked by [`known_params`] for every endpoint.

pub use crate::fleet::url::split_url;
use serde::Serialize;
use std::collections::BTreeMap;

/// A request as handlers see it.
pub struct Req {
    pub method: String,
    /// Path segments, percent-decoded (`/devices/Pixel%207` → ["devices", "Pixel 7"]).
    pub path: Vec<String>,
    pub query: BTreeMap<String, String>,
    /// The `Authorization: Bearer …` token.
    pub token: Option<String>,
    /// The `Content-Type` header.
    pub content_type: Option<String>,
    /// The `Cookie` header.
    pub cookie: Option<String>,
    pub body: Vec<u8>,
    /// The token's name, once its token was checked from the request's head.
    pub who: Option<String>,
    /// A body kept in a file instead of `body` (a published trace, [`super::traces`]).
    pub upload: Option<std::path::PathBuf>,
}

impl Req {
    pub fn segments(&self) -> Vec<&str> {
        self.path.iter().map(String::as_str).collect()
    }

    /// Whether the body is declared JSON (`application/json`, with or without parameters).
    pub fn is_json(&self) -> bool {
        self.content_type.as_deref().is_some_and(|t| {
            t.split(';')
                .next()
                .is_some_and(|m| m.trim().eq_ignore_ascii_case("application/json"))
        })
    }

    pub fn param(&self, key: &str) -> Option<&str> {
        self.query
            .get(key)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }
}

/// A 404 saying what is not there.
pub fn not_found(what: String) -> Reply {
    Reply::error(404, None, what)
}

/// The non-negative integer query parameter `key` of `rq` (`default` when absent), or a 400.
pub fn int_param(rq: &Req, key: &str, default: i64) -> Result<i64, Reply> {
    match rq.param(key) {
        None => Ok(default),
        Some(v) => v.parse::<i64>().ok().filter(|n| *n >= 0).ok_or_else(|| {
            Reply::error(
                400,
                Some(key),
                format!(
                    "{}: expected a non-negative integer",
                    crate::limits::escape(v)
                ),
            )
        }),
    }
}

/// A 400 naming every query parameter of `rq` that is not in `known`.
pub fn known_params(rq: &Req, known: &[&str]) -> Result<(), Reply> {
    let unknown: Vec<String> = rq
        .query
        .keys()
        .filter(|k| !known.contains(&k.as_str()))
        .map(|k| crate::limits::escape(k))
        .collect();
    if unknown.is_empty() {
        return Ok(());
    }
    Err(Reply::error(
        400,
        Some("query"),
        format!(
            "unknown parameter{} {} (this endpoint takes {})",
            if unknown.len() == 1 { "" } else { "s" },
            unknown.join(", "),
            known.join(", ")
        ),
    ))
}

/// A response.
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// `Retry-After` seconds (429).
    pub retry_after: Option<u64>,
    /// Other headers (`Set-Cookie`, `Location`).
    pub headers: Vec<(&'static str, String)>,
    /// A body streamed from the database instead of `body` (a stored result).
    pub stream: Option<Box<super::stream::Chunks>>,
}

impl Reply {
    pub fn json(status: u16, value: &impl Serialize) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: serde_json::to_vec_pretty(value).unwrap_or_default(),
            retry_after: None,
            headers: Vec::new(),
            stream: None,
        }
    }

    pub fn html(status: u16, page: String) -> Reply {
        Reply {
            status,
            content_type: "text/html; charset=utf-8",
            body: page.into_bytes(),
            retry_after: None,
            headers: Vec::new(),
            stream: None,
        }
    }

    /// A JSON error.
    pub fn error(status: u16, field: Option<&str>, message: impl Into<String>) -> Reply {
        let mut e = serde_json::Map::new();
        if let Some(f) = field {
            e.insert("field".into(), f.into());
        }
        e.insert("message".into(), message.into().into());
        Reply::json(status, &serde_json::json!({ "error": e }))
    }

    /// A JSON answer streamed from the database.
    pub fn stream(body: super::stream::Chunks) -> Reply {
        let mut r = Reply::no_content();
        r.status = 200;
        r.stream = Some(Box::new(body));
        r
    }

    pub fn no_content() -> Reply {
        Reply {
            status: 204,
            content_type: "application/json",
            body: Vec::new(),
            retry_after: None,
            headers: Vec::new(),
            stream: None,
        }
    }
}

/// Why a request's body was not read: the reply saying so.
pub fn body_error(e: &(dyn std::error::Error + 'static), max_body: u64) -> Reply {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(e);
    while let Some(c) = cause {
        if c.is::<http_body_util::LengthLimitError>() {
            return too_large(max_body);
        }
        cause = c.source();
    }
    Reply::error(400, Some("body"), crate::limits::one_line(&e.to_string()))
}

/// The reply to a body over `max_body` bytes.
pub fn too_large(max_body: u64) -> Reply {
    Reply::error(
        413,
        Some("body"),
        format!("larger than {max_body} bytes (the server's --max-body)"),
    )
}

/// A request's head as a [`Req`] (its body still to be read, by [`body`]).
pub fn head(parts: &axum::http::request::Parts) -> Req {
    let header = |name: axum::http::HeaderName| {
        parts
            .headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let target = parts
        .uri
        .path_and_query()
        .map_or("/", |p| p.as_str())
        .to_string();
    let (path, query) = split_url(&target);
    Req {
        method: parts.method.as_str().to_ascii_uppercase(),
        path,
        query,
        token: header(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.strip_prefix("Bearer ").map(|t| t.trim().to_string())),
        content_type: header(axum::http::header::CONTENT_TYPE),
        cookie: header(axum::http::header::COOKIE),
        body: Vec::new(),
        who: None,
        upload: None,
    }
}

/// How a request's body must arrive: whole within `deadline` of the end of the head (a
/// deadline, not a gap between packets), and from its first second on at an average of at
/// least `min_rate` bytes a second; 408 otherwise.
#[derive(Clone, Copy, Debug)]
pub struct BodyPace {
    pub deadline: std::time::Duration,
    pub min_rate: u64,
}

/// What of a request's body has already arrived (read without waiting), and whether that is
/// all of it.
pub async fn arrived(body: &mut axum::body::Body, max_body: u64) -> Result<(Vec<u8>, bool), Reply> {
    use http_body_util::BodyExt;
    let mut got = Vec::new();
    loop {
        match tokio::time::timeout(std::time::Duration::ZERO, body.frame()).await {
            Err(_) => return Ok((got, false)),
            Ok(None) => return Ok((got, true)),
            Ok(Some(Err(e))) => return Err(body_error(&e, max_body)),
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    got.extend_from_slice(&data);
                }
            }
        }
    }
}

/// A request's body, the rest of it after `got`, read whole at `pace` (counted from now). It arrives through tower-http's
/// `RequestBodyLimitLayer`, which refuses one declared too large before it is read and stops
/// one that grows too large as it arrives ([`body_error`] turns that into 413).
pub async fn body(
    body: axum::body::Body,
    mut got: Vec<u8>,
    max_body: u64,
    pace: BodyPace,
) -> Result<Vec<u8>, Reply> {
    let mut more = Vec::new();
    body_into(body, got.len() as u64, max_body, pace, |data| {
        more.extend_from_slice(data);
        Ok(())
    })
    .await?;
    got.append(&mut more);
    Ok(got)
}

/// A request's body handed to `sink` piece by piece as it arrives (never whole in memory), at
/// `pace` and under the same limits as [`body`]; `already` bytes of it were read before. A
/// `sink` that fails ends the read with a 500.
pub async fn body_into(
    mut body: axum::body::Body,
    already: u64,
    max_body: u64,
    pace: BodyPace,
    mut sink: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> Result<u64, Reply> {
    use http_body_util::BodyExt;
    let start = tokio::time::Instant::now();
    let end = start + pace.deadline;
    let mut got = already;
    loop {
        // Wake at least every second to check the pace.
        let tick = (tokio::time::Instant::now() + std::time::Duration::from_secs(1)).min(end);
        match tokio::time::timeout_at(tick, body.frame()).await {
            Ok(None) => return Ok(got),
            Ok(Some(Err(e))) => return Err(body_error(&e, max_body)),
            Ok(Some(Ok(frame))) => {
                if let Ok(data) = frame.into_data() {
                    got += data.len() as u64;
                    if let Err(e) = sink(&data) {
                        eprintln!("pocketbench serve: keeping a request's body: {e}");
                        return Err(Reply::error(
                            500,
                            Some("body"),
                            "the server could not keep the body (see its log)",
                        ));
                    }
                }
            }
            Err(_) => {}
        }
        let now = tokio::time::Instant::now();
        if now >= end {
            return Err(Reply::error(
                408,
                Some("body"),
                "not sent in time (the server's --body-timeout: the whole body within it)",
            ));
        }
        let secs = (now - start).as_secs_f64();
        if secs > 1.0 && (got as f64) < pace.min_rate as f64 * secs {
            return Err(Reply::error(
                408,
                Some("body"),
                format!(
                    "sent too slowly: {got} bytes in {secs:.1} s (the server's --min-body-rate: {} bytes a second at least)",
                    pace.min_rate
                ),
            ));
        }
    }
}

/// The answer tower-http's body limit gives a body declared over `max_body` (plain text) in
/// the server's JSON error shape; every other response unchanged.
pub fn json_413<B>(r: axum::http::Response<B>, max_body: u64) -> axum::response::Response
where
    B: axum::body::HttpBody<Data = axum::body::Bytes> + Send + 'static,
    B::Error: Into<axum::BoxError>,
{
    let json = r
        .headers()
        .get(axum::http::header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if r.status() == axum::http::StatusCode::PAYLOAD_TOO_LARGE && !json {
        return axum::response::IntoResponse::into_response(too_large(max_body));
    }
    r.map(axum::body::Body::new)
}

/// Every answer's protective headers: its content type is not to be guessed (`nosniff`), no
/// page leaks its address to another site (`Referrer-Policy`), and pages run no script, load
/// nothing from elsewhere and apply only their own style ([`super::style::csp`]).
pub fn protect(mut r: axum::response::Response) -> axum::response::Response {
    use axum::http::{header, HeaderValue};
    let h = r.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    if let Ok(v) = HeaderValue::from_str(super::style::csp()) {
        h.insert(header::CONTENT_SECURITY_POLICY, v);
    }
    r
}

impl axum::response::IntoResponse for Reply {
    fn into_response(self) -> axum::response::Response {
        let body = match self.stream {
            Some(s) => axum::body::Body::new(s),
            None => axum::body::Body::from(self.body),
        };
        let mut r = axum::response::Response::new(body);
        *r.status_mut() = axum::http::StatusCode::from_u16(self.status)
            .unwrap_or(axum::http::StatusCode::INTERNAL_SERVER_ERROR);
        let h = r.headers_mut();
        h.insert(
            axum::http::header::CONTENT_TYPE,
            axum::http::HeaderValue::from_static(self.content_type),
        );
        if let Some(s) = self.retry_after {
            h.insert(axum::http::header::RETRY_AFTER, s.into());
        }
        for (name, value) in self.headers {
            if let Ok(v) = axum::http::HeaderValue::from_str(&value) {
                h.append(name, v);
            }
        }
        r
    }
}

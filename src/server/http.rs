//! HTTP plumbing between tiny_http and the handlers: a request read into a [`Req`] (method,
//! decoded path segments and query, bearer token, body read up to the size limit) and a
//! [`Reply`] (status, content type, body) written back. JSON errors have one shape:
//! `{"error": {"field": "device.model", "message": "…"}}` (`field` only when one is to blame).

pub use crate::fleet::url::split_url;
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Read;

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
    pub body: Vec<u8>,
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

/// A response.
pub struct Reply {
    pub status: u16,
    pub content_type: &'static str,
    pub body: Vec<u8>,
    /// `Retry-After` seconds (429).
    pub retry_after: Option<u64>,
}

impl Reply {
    pub fn json(status: u16, value: &impl Serialize) -> Reply {
        Reply {
            status,
            content_type: "application/json",
            body: serde_json::to_vec_pretty(value).unwrap_or_default(),
            retry_after: None,
        }
    }

    pub fn html(status: u16, page: String) -> Reply {
        Reply {
            status,
            content_type: "text/html; charset=utf-8",
            body: page.into_bytes(),
            retry_after: None,
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

    pub fn no_content() -> Reply {
        Reply {
            status: 204,
            content_type: "application/json",
            body: Vec::new(),
            retry_after: None,
        }
    }
}

/// Why a request's body was not read.
pub enum BodyError {
    TooLarge,
    Unreadable(String),
}

/// Read a tiny_http request into a [`Req`], refusing a body over `max_body` bytes (by its
/// Content-Length before reading, and by counting for a chunked body).
pub fn read(rq: &mut tiny_http::Request, max_body: u64) -> Result<Req, BodyError> {
    let (path, query) = split_url(rq.url());
    let token = rq
        .headers()
        .iter()
        .find(|h| h.field.equiv("Authorization"))
        .and_then(|h| h.value.as_str().strip_prefix("Bearer "))
        .map(|t| t.trim().to_string());
    let content_type = rq
        .headers()
        .iter()
        .find(|h| h.field.equiv("Content-Type"))
        .map(|h| h.value.as_str().to_string());
    if rq.body_length().is_some_and(|n| n as u64 > max_body) {
        return Err(BodyError::TooLarge);
    }
    let mut body = Vec::new();
    rq.as_reader()
        .take(max_body + 1)
        .read_to_end(&mut body)
        .map_err(|e| BodyError::Unreadable(e.to_string()))?;
    if body.len() as u64 > max_body {
        return Err(BodyError::TooLarge);
    }
    Ok(Req {
        method: rq.method().as_str().to_ascii_uppercase(),
        path,
        query,
        token,
        content_type,
        body,
    })
}

/// Send `reply` for `rq`.
pub fn respond(rq: tiny_http::Request, reply: Reply) {
    let mut r = tiny_http::Response::from_data(reply.body).with_status_code(reply.status);
    if let Ok(h) = tiny_http::Header::from_bytes("Content-Type", reply.content_type) {
        r.add_header(h);
    }
    if let Some(s) = reply.retry_after {
        if let Ok(h) = tiny_http::Header::from_bytes("Retry-After", s.to_string()) {
            r.add_header(h);
        }
    }
    // The client may have gone; nothing to do about it.
    let _ = rq.respond(r);
}

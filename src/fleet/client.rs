//! A small HTTP client for the results server's API, over ureq (plain HTTP; this build has no
//! TLS stack, so a server on the internet is reached through a TLS-terminating proxy or a
//! tunnel — an `https://` URL is refused with that explanation).

use crate::error::{Error, Result};
use std::time::Duration;

/// The largest response body read.
pub const MAX_RESPONSE_BYTES: u64 = 64 << 20;

pub struct Client {
    base: String,
    token: Option<String>,
    agent: ureq::Agent,
}

/// A response: status and body.
pub struct Response {
    pub status: u16,
    pub body: Vec<u8>,
    pub retry_after: Option<u64>,
}

impl Response {
    /// The JSON error message the server sent, or the body as text.
    pub fn message(&self) -> String {
        let v: Option<serde_json::Value> = serde_json::from_slice(&self.body).ok();
        let m = v.as_ref().and_then(|v| {
            let e = v.get("error")?;
            let msg = e.get("message")?.as_str()?;
            Some(match e.get("field").and_then(|f| f.as_str()) {
                Some(f) => format!("{f}: {msg}"),
                None => msg.to_string(),
            })
        });
        crate::limits::one_line(&m.unwrap_or_else(|| {
            String::from_utf8_lossy(&self.body)
                .chars()
                .take(300)
                .collect()
        }))
    }

    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        serde_json::from_slice(&self.body).map_err(|e| {
            Error::failed(format!("the server's answer is not what was expected: {e}"))
        })
    }
}

impl Client {
    /// A client for the server at `url` (`http://host:port`), sending `token` if given.
    pub fn new(url: &str, token: Option<&str>) -> Result<Client> {
        let bad =
            |why: &str| Error::input(format!("--server {}: {why}", crate::limits::escape(url)));
        if url.starts_with("https://") {
            return Err(bad(
                "this build speaks plain HTTP only (put the server behind a TLS proxy and reach it through a tunnel, or use http://)",
            ));
        }
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| bad("expected http://HOST:PORT"))?;
        if rest.trim_end_matches('/').is_empty() || rest.contains(char::is_whitespace) {
            return Err(bad("expected http://HOST:PORT"));
        }
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_global(Some(Duration::from_secs(120)))
            .build()
            .into();
        Ok(Client {
            base: url.trim_end_matches('/').to_string(),
            token: token.map(str::to_string),
            agent,
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    fn finish(
        &self,
        r: std::result::Result<ureq::http::Response<ureq::Body>, ureq::Error>,
    ) -> Result<Response> {
        let mut r = r.map_err(|e| Error::failed(format!("--server {}: {e}", self.base)))?;
        let status = r.status().as_u16();
        let retry_after = r
            .headers()
            .get("retry-after")
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse().ok());
        let body = r
            .body_mut()
            .with_config()
            .limit(MAX_RESPONSE_BYTES)
            .read_to_vec()
            .map_err(|e| {
                Error::failed(format!("--server {}: reading the answer: {e}", self.base))
            })?;
        Ok(Response {
            status,
            body,
            retry_after,
        })
    }

    /// POST `body` (JSON) to `path` (`/api/v1/results`).
    pub fn post(&self, path: &str, body: &[u8]) -> Result<Response> {
        let mut rq = self
            .agent
            .post(format!("{}{path}", self.base))
            .header("Content-Type", "application/json");
        if let Some(t) = &self.token {
            rq = rq.header("Authorization", format!("Bearer {t}"));
        }
        self.finish(rq.send(body))
    }

    pub fn get(&self, path: &str) -> Result<Response> {
        let mut rq = self.agent.get(format!("{}{path}", self.base));
        if let Some(t) = &self.token {
            rq = rq.header("Authorization", format!("Bearer {t}"));
        }
        self.finish(rq.call())
    }
}

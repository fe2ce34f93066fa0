//! The HTTP client `submit` and `agent` use to talk to a results server: HTTP/1.1 over std's
//! TcpStream, one connection per request (`Connection: close`), the response head parsed by
//! httparse and its body read by Content-Length, chunks or to the end, at most
//! [`MAX_RESPONSE_BYTES`] (a download's body goes to a file as it arrives: [`Client::download`]).
//! Hand-written because devices carry it and the general-purpose
//! clients cost a megabyte of the device binary. Builds with the results server (the host's)
//! also speak HTTPS, through the server's rustls ([`super::tls`]); device builds speak plain
//! HTTP only, so there a server on the internet is reached through a TLS-terminating proxy or
//! a tunnel (an `https://` URL is refused with that explanation).

use crate::error::{Error, Result};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

/// The largest response body read.
pub const MAX_RESPONSE_BYTES: u64 = 64 << 20;
/// The largest response head (status line and headers).
const MAX_HEAD_BYTES: usize = 64 << 10;
/// How long connecting, and then each read or write, may take.
const TIMEOUT: Duration = Duration::from_secs(120);

pub struct Client {
    /// `http[s]://host:port`, as given without a trailing slash.
    base: String,
    /// `host:port` (port 80, or 443 for https, when the URL has none).
    authority: String,
    /// The host, without brackets: the name the server's certificate must carry.
    #[cfg_attr(not(feature = "server"), allow(dead_code))]
    host: String,
    /// `https://`.
    tls: bool,
    token: Option<String>,
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
    /// A client for the server at `url` (`http[s]://HOST[:PORT]`), sending `token` if given.
    pub fn new(url: &str, token: Option<&str>) -> Result<Client> {
        let bad =
            |why: &str| Error::input(format!("--server {}: {why}", crate::limits::escape(url)));
        let (tls, rest) = match (url.strip_prefix("https://"), url.strip_prefix("http://")) {
            (Some(_), _) if !cfg!(feature = "server") => return Err(bad(
                "this build speaks plain HTTP only (put the server behind a TLS proxy and reach it through a tunnel, or use http://)",
            )),
            (Some(rest), _) => (true, rest),
            (None, Some(rest)) => (false, rest),
            (None, None) => return Err(bad("expected http://HOST:PORT or https://HOST:PORT")),
        };
        let authority = rest.trim_end_matches('/');
        let default = if tls { "443" } else { "80" };
        // `[v6 address]` keeps its colons inside the brackets.
        let (host, port) = match authority.strip_prefix('[').and_then(|r| r.split_once(']')) {
            Some((h, "")) => (&authority[..h.len() + 2], default),
            Some((h, p)) => (
                &authority[..h.len() + 2],
                p.strip_prefix(':').unwrap_or("bad"),
            ),
            None => authority.rsplit_once(':').unwrap_or((authority, default)),
        };
        if host.is_empty()
            || authority.contains(['/', '?', '#', '@'])
            || authority.contains(char::is_whitespace)
            || port.parse::<u16>().is_err()
        {
            return Err(bad("expected http://HOST:PORT or https://HOST:PORT"));
        }
        let scheme = if tls { "https" } else { "http" };
        Ok(Client {
            base: format!("{scheme}://{authority}"),
            authority: format!("{host}:{port}"),
            host: host
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string(),
            tls,
            token: token.map(str::to_string),
        })
    }

    pub fn base(&self) -> &str {
        &self.base
    }

    /// POST `body` (JSON) to `path` (`/api/v1/results`).
    pub fn post(&self, path: &str, body: &[u8]) -> Result<Response> {
        self.request("POST", path, Body::Json(body), None)
    }

    pub fn get(&self, path: &str) -> Result<Response> {
        self.request("GET", path, Body::Json(&[]), None)
    }

    /// POST the bytes of `file` to `path`, read from the file as they are sent.
    pub fn post_file(&self, path: &str, file: &std::path::Path) -> Result<Response> {
        self.request("POST", path, Body::File(file), None)
    }

    /// GET `path`; a 200's body is written to `out` as it arrives (at most `max` bytes, its
    /// Response's `body` left empty), any other answer's read as usual.
    pub fn download(&self, path: &str, out: &mut dyn Write, max: u64) -> Result<Response> {
        self.request("GET", path, Body::Json(&[]), Some((out, max)))
    }

    /// An I/O error as a sentence (a refused certificate says why and what to do).
    fn io_text(&self, e: &std::io::Error) -> String {
        #[cfg(feature = "server")]
        if self.tls {
            if let Some(t) = super::tls::explain(e, &self.host) {
                return t;
            }
        }
        e.to_string()
    }

    fn fail(&self, what: &str, e: impl std::fmt::Display) -> Error {
        Error::failed(format!("--server {}: {what}: {e}", self.base))
    }

    fn connect(&self) -> Result<TcpStream> {
        let addrs = self
            .authority
            .to_socket_addrs()
            .map_err(|e| self.fail("resolving the host", e))?;
        let mut last = None;
        for a in addrs {
            match TcpStream::connect_timeout(&a, TIMEOUT) {
                Ok(s) => return Ok(s),
                Err(e) => last = Some(e),
            }
        }
        Err(self.fail(
            "cannot connect",
            last.map_or("no address".to_string(), |e| e.to_string()),
        ))
    }

    fn request(
        &self,
        method: &str,
        path: &str,
        body: Body<'_>,
        sink: Option<Sink<'_>>,
    ) -> Result<Response> {
        let s = self.connect()?;
        let _ = s.set_nodelay(true);
        s.set_read_timeout(Some(TIMEOUT))
            .and_then(|_| s.set_write_timeout(Some(TIMEOUT)))
            .map_err(|e| self.fail("socket", e))?;
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\nUser-Agent: {}\r\nAccept: application/json\r\n",
            self.authority,
            crate::TOOL_VERSION.replace(' ', "/")
        );
        if let Some(t) = &self.token {
            head.push_str(&format!("Authorization: Bearer {t}\r\n"));
        }
        let (kind, len) = match body {
            Body::Json(b) => ("application/json", b.len() as u64),
            Body::File(f) => (
                "application/octet-stream",
                std::fs::metadata(f)
                    .map_err(|e| Error::input(format!("{}: {e}", f.display())))?
                    .len(),
            ),
        };
        if method == "POST" {
            head.push_str(&format!(
                "Content-Type: {kind}\r\nContent-Length: {len}\r\n"
            ));
        }
        head.push_str("\r\n");
        if self.tls {
            #[cfg(feature = "server")]
            {
                let s = super::tls::stream(&self.host, s).map_err(|e| self.fail("TLS", e))?;
                return self.exchange(s, head.as_bytes(), body, sink);
            }
        }
        self.exchange(s, head.as_bytes(), body, sink)
    }

    /// Send `head` and `body` on `s` and read the answer.
    fn exchange(
        &self,
        mut s: impl Read + Write,
        head: &[u8],
        body: Body<'_>,
        sink: Option<Sink<'_>>,
    ) -> Result<Response> {
        let sent = match body {
            Body::Json(b) => s.write_all(head).and_then(|_| s.write_all(b)),
            Body::File(f) => std::fs::File::open(f).and_then(|mut file| {
                s.write_all(head)?;
                std::io::copy(&mut file, &mut s).map(|_| ())
            }),
        };
        if let Err(e) = sent.and_then(|_| s.flush()) {
            // The server may have answered early (a refused token, a body too large): read it.
            if let Ok(r) = read_response(BufReader::new(&mut s), None) {
                return Ok(r);
            }
            return Err(self.fail("sending", self.io_text(&e)));
        }
        read_response(BufReader::new(s), sink).map_err(|e| self.fail("reading the answer", e))
    }
}

/// What a request sends: JSON bytes, or a file's bytes read as they are sent.
#[derive(Clone, Copy)]
enum Body<'a> {
    Json(&'a [u8]),
    File(&'a std::path::Path),
}

/// Where a 200 answer's body goes instead of memory, and the most bytes it may have.
type Sink<'a> = (&'a mut dyn Write, u64);

/// Read one HTTP/1.1 response (a 200's body into `sink` when there is one).
fn read_response(
    mut r: impl BufRead,
    sink: Option<Sink<'_>>,
) -> std::result::Result<Response, String> {
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let n = r
            .by_ref()
            .take(1 + MAX_HEAD_BYTES as u64)
            .read_until(b'\n', &mut head)
            .map_err(|e| e.to_string())?;
        if n == 0 {
            return Err("the connection closed before the answer's headers ended".into());
        }
        if head.len() > MAX_HEAD_BYTES {
            return Err(format!("headers longer than {MAX_HEAD_BYTES} bytes"));
        }
    }
    let mut headers = [httparse::EMPTY_HEADER; 64];
    let mut parsed = httparse::Response::new(&mut headers);
    match parsed.parse(&head) {
        Ok(httparse::Status::Complete(_)) => {}
        Ok(httparse::Status::Partial) => return Err("incomplete headers".into()),
        Err(e) => return Err(format!("not an HTTP answer ({e})")),
    }
    let status = parsed.code.unwrap_or(0);
    let header = |name: &str| {
        parsed
            .headers
            .iter()
            .find(|h| h.name.eq_ignore_ascii_case(name))
            .map(|h| String::from_utf8_lossy(h.value).trim().to_string())
    };
    let retry_after = header("retry-after").and_then(|v| v.parse().ok());
    let chunked = header("transfer-encoding").is_some_and(|v| v.eq_ignore_ascii_case("chunked"));
    let length = match header("content-length") {
        Some(len) => Some(
            len.parse::<u64>()
                .map_err(|_| format!("a bad Content-Length {len:?}"))?,
        ),
        None => None,
    };
    let mut body = Vec::new();
    match sink {
        Some((out, max)) if status == 200 => read_body(&mut r, chunked, length, out, max)?,
        _ => read_body(&mut r, chunked, length, &mut body, MAX_RESPONSE_BYTES)?,
    }
    Ok(Response {
        status,
        body,
        retry_after,
    })
}

/// Copy a response's body to `out` (by chunks, by `length`, or to the end), at most `max`
/// bytes, a piece at a time.
fn read_body(
    r: &mut impl BufRead,
    chunked: bool,
    length: Option<u64>,
    out: &mut dyn Write,
    max: u64,
) -> std::result::Result<(), String> {
    let too_large = || format!("a body larger than {max} bytes");
    let io = |e: std::io::Error| e.to_string();
    let mut copied = 0u64;
    let mut copy = |r: &mut dyn Read, n: u64| -> std::result::Result<(), String> {
        if copied + n > max {
            return Err(too_large());
        }
        let got = std::io::copy(&mut r.take(n), out).map_err(io)?;
        copied += got;
        if got < n {
            return Err("the connection closed before the body ended".into());
        }
        Ok(())
    };
    if chunked {
        loop {
            let mut line = String::new();
            r.by_ref().take(1024).read_line(&mut line).map_err(io)?;
            let size = u64::from_str_radix(line.trim().split(';').next().unwrap_or(""), 16)
                .map_err(|_| format!("a bad chunk size {:?}", line.trim()))?;
            if size == 0 {
                return Ok(());
            }
            copy(r, size)?;
            let mut crlf = [0u8; 2];
            r.read_exact(&mut crlf).map_err(io)?;
        }
    }
    if let Some(len) = length {
        return copy(r, len);
    }
    // To the end: one byte past `max` is read to tell a body at the bound from one past it.
    let got = std::io::copy(&mut r.take(max + 1), out).map_err(io)?;
    if got > max {
        return Err(too_large());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    //! URLs the client takes and refuses; responses read by length, by chunks and to the end.
    use super::*;

    fn read_response_(r: &[u8]) -> std::result::Result<Response, String> {
        read_response(r, None)
    }

    #[test]
    fn urls() {
        assert_eq!(
            Client::new("http://127.0.0.1:8080/", None)
                .unwrap()
                .authority,
            "127.0.0.1:8080"
        );
        assert_eq!(Client::new("http://lab", None).unwrap().authority, "lab:80");
        assert_eq!(
            Client::new("http://[::1]:9", None).unwrap().authority,
            "[::1]:9"
        );
        assert_eq!(
            Client::new("http://[::1]", None).unwrap().authority,
            "[::1]:80"
        );
        // https: port 443 and the bare host for the certificate, where the build has TLS.
        let tls = Client::new("https://[::1]/", None);
        if cfg!(feature = "server") {
            let c = tls.unwrap();
            assert_eq!(
                (c.authority.as_str(), c.host.as_str()),
                ("[::1]:443", "::1")
            );
            assert_eq!(c.base(), "https://[::1]");
        } else {
            assert!(tls.is_err());
        }
        for bad in [
            "https://",
            "https://h:1/x",
            "ftp://x",
            "http://",
            "http://h:port",
            "http://h:1/api",
            "http://a b",
        ] {
            assert!(Client::new(bad, None).is_err(), "{bad}");
        }
    }

    #[test]
    fn responses() {
        let r = read_response_(&b"HTTP/1.1 201 Created\r\nContent-Length: 2\r\n\r\n{}extra"[..])
            .unwrap();
        assert_eq!((r.status, r.body.as_slice()), (201, &b"{}"[..]));
        let r = read_response_(
            &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"[..],
        )
        .unwrap();
        assert_eq!(r.body, b"abcde");
        let r = read_response_(&b"HTTP/1.1 429 Too Many\r\nRetry-After: 7\r\n\r\nslow down"[..])
            .unwrap();
        assert_eq!(
            (r.status, r.retry_after, r.body.as_slice()),
            (429, Some(7), &b"slow down"[..])
        );
        assert!(read_response_(&b"HTTP/1.1 200 OK\r\nContent-Len"[..]).is_err());
        assert!(read_response_(&b"garbage\r\n\r\n"[..]).is_err());
        assert!(
            read_response_(&b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999\r\n\r\n"[..]).is_err()
        );
        // A 200 into a sink, by chunks: nothing kept in the response; past the sink's bound,
        // refused; another status's body kept as usual.
        let mut out = Vec::new();
        let r = read_response(
            &b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n"[..],
            Some((&mut out, 5)),
        )
        .unwrap();
        assert_eq!((out.as_slice(), r.body.len()), (&b"abcde"[..], 0));
        let mut out = Vec::new();
        assert!(read_response(
            &b"HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nabcdef"[..],
            Some((&mut out, 5))
        )
        .is_err());
        let r = read_response(
            &b"HTTP/1.1 404 Not Found\r\n\r\nnope"[..],
            Some((&mut out, 5)),
        )
        .unwrap();
        assert_eq!(r.body, b"nope");
    }
}

//! Shared app traces, the device side: publishing a trace to a results server
//! (`pocketbench submit --trace`, [`publish`]) and fetching one to replay
//! (`pocketbench run --trace http://SERVER/traces/SHA256` and `trace pull`, [`pull`]).
//!
//! A trace is addressed by the SHA-256 of its bytes. A fetched trace is streamed into a
//! temporary file in the cache folder (at most [`MAX_TRACE_BYTES`]), its SHA-256 computed as it
//! arrives and compared with its address, then read whole (every checksum, record and the end
//! block) before it is moved to its place in the cache ([`cache_dir`]`/SHA256.pbt`); a cached
//! trace is hashed again before each use. The trace stays untrusted: its replay runs behind the
//! engines' guard like any other workload's.

use super::client::Client;
use crate::error::{Error, Result};
use crate::workload::trace::TraceHeader;
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

/// The longest title and description of a published trace, in bytes (the server's bounds).
pub const MAX_TITLE: usize = 200;
pub const MAX_DESCRIPTION: usize = 4000;

/// The largest trace fetched: the most a server may be set to accept (`serve --max-body`).
pub const MAX_TRACE_BYTES: u64 = 256 << 20;

/// A SHA-256 in lower-case hex.
fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}

/// The SHA-256 of a file's bytes, in lower-case hex, and its length.
pub fn sha256_of(path: &Path) -> std::io::Result<(String, u64)> {
    let mut f = std::fs::File::open(path)?;
    let mut h = Sha256::new();
    let mut buf = vec![0u8; 256 * 1024];
    let mut n = 0u64;
    loop {
        match f.read(&mut buf)? {
            0 => break,
            k => {
                h.update(&buf[..k]);
                n += k as u64;
            }
        }
    }
    Ok((hex(&h.finalize()), n))
}

/// The anonymisation rule of publishing: `Ok(what)` when a trace with `header` may be
/// published (`unanonymised`: its publisher says it is not anonymised and may be published so),
/// else why not. A trace imported from an app's log must say in its header that it was
/// anonymised; a generated one holds no app's data.
pub fn anonymised(header: &TraceHeader, unanonymised: bool) -> std::result::Result<String, String> {
    match &header.import {
        None => Ok("generated".into()),
        Some(i) if !i.anonymized.is_empty() => Ok(i.anonymized.join(",")),
        Some(_) if unanonymised => Ok("no".into()),
        Some(i) => Err(format!(
            "the trace was imported from a {} log without anonymisation (its header's import.anonymized is empty): \
             import it again with --anonymize, or publish it as it is with --unanonymised",
            crate::limits::escape(&i.format)
        )),
    }
}

/// What publishing answered.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct Published {
    pub sha256: String,
    /// False when the server had the same trace already.
    pub created: bool,
    pub digest: String,
    pub bytes: u64,
    pub anonymised: String,
    pub statements: u64,
    /// The trace's page (and what `run --trace` takes).
    #[serde(default)]
    pub url: String,
}

/// A query parameter's value, percent-encoded.
fn enc(v: &str) -> String {
    percent_encoding::utf8_percent_encode(v, percent_encoding::NON_ALPHANUMERIC).to_string()
}

/// Publish the trace at `path` on the server of `client`, titled `title`. The trace is read
/// whole here first (a broken trace or one the anonymisation rule refuses is bad input before
/// anything is sent), then streamed from the file.
pub fn publish(
    client: &Client,
    path: &Path,
    title: &str,
    description: &str,
    unanonymised: bool,
) -> Result<Published> {
    let (header, _) = crate::workload::trace::verify(path)?;
    anonymised(&header, unanonymised)
        .map_err(|why| Error::input(format!("--trace {}: {why}", path.display())))?;
    let mut target = format!(
        "/api/v1/traces?title={}&description={}",
        enc(title),
        enc(description)
    );
    if unanonymised {
        target.push_str("&unanonymised=yes");
    }
    let r = client.post_file(&target, path)?;
    match r.status {
        200 | 201 => {
            let mut p: Published = r.json()?;
            p.url = format!("{}/traces/{}", client.base(), p.sha256);
            Ok(p)
        }
        401 | 403 => Err(Error::input(format!(
            "--token: the server refused it ({}: {})",
            r.status,
            r.message()
        ))),
        s => Err(Error::failed(format!(
            "the server refused the trace ({s}): {}",
            r.message()
        ))),
    }
}

/// A shared trace's address split: the server's base URL and the trace's SHA-256, from
/// `http[s]://HOST[:PORT]/traces/SHA256` (the trace's page).
pub fn parse_address(url: &str) -> Option<(String, String)> {
    let (base, sha) = url.trim_end_matches('/').rsplit_once("/traces/")?;
    let sha = sha.to_ascii_lowercase();
    let hexdigits = sha.len() == 64 && sha.bytes().all(|b| b.is_ascii_hexdigit());
    let scheme = base.starts_with("http://") || base.starts_with("https://");
    (hexdigits && scheme).then(|| (base.to_string(), sha))
}

/// Whether `arg` names a shared trace by URL rather than a file.
pub fn is_address(arg: &str) -> bool {
    arg.starts_with("http://") || arg.starts_with("https://")
}

/// Where fetched traces are kept: `$XDG_CACHE_HOME/pocketbench/traces`, else
/// `$HOME/.cache/pocketbench/traces`, else `./.pocketbench-cache/traces`.
pub fn cache_dir() -> PathBuf {
    let base = std::env::var_os("XDG_CACHE_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".cache"))
        });
    match base {
        Some(b) => b.join("pocketbench").join("traces"),
        None => PathBuf::from(".pocketbench-cache").join("traces"),
    }
}

/// A writer that hashes what goes through it.
struct Hashing<W> {
    inner: W,
    hash: Sha256,
}

impl<W: Write> Write for Hashing<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// The trace at `url` (`http[s]://SERVER/traces/SHA256`) in the cache (fetched unless it is
/// there with the right bytes already), and whether it was fetched now. `flag` names the flag
/// in messages (`--trace`).
pub fn pull(url: &str, token: Option<&str>, flag: &str) -> Result<(PathBuf, bool)> {
    let bad = |why: &str| Error::input(format!("{flag} {}: {why}", crate::limits::escape(url)));
    let (base, sha) = parse_address(url).ok_or_else(|| {
        bad("expected http[s]://HOST[:PORT]/traces/SHA256 (a published trace's page)")
    })?;
    let dir = cache_dir();
    let cached = dir.join(format!("{sha}.pbt"));
    if cached.is_file() && sha256_of(&cached).is_ok_and(|(h, _)| h == sha) {
        return Ok((cached, false));
    }
    let client = Client::new(&base, token)?;
    std::fs::create_dir_all(&dir)
        .map_err(|e| Error::failed(format!("the trace cache {}: {e}", dir.display())))?;
    let tmp = tempfile::Builder::new()
        .prefix(".fetch-")
        .tempfile_in(&dir)
        .map_err(|e| Error::failed(format!("the trace cache {}: {e}", dir.display())))?;
    let file = tmp
        .as_file()
        .try_clone()
        .map_err(|e| Error::failed(format!("the trace cache {}: {e}", dir.display())))?;
    let mut out = Hashing {
        inner: std::io::BufWriter::new(file),
        hash: Sha256::new(),
    };
    let r = client.download(
        &format!("/api/v1/traces/{sha}/file"),
        &mut out,
        MAX_TRACE_BYTES,
    )?;
    match r.status {
        200 => {}
        404 => return Err(bad("the server has no such trace")),
        s => {
            return Err(Error::failed(format!(
                "{flag} {url}: the server answered {s}: {}",
                r.message()
            )))
        }
    }
    out.flush()
        .map_err(|e| Error::failed(format!("the trace cache {}: {e}", dir.display())))?;
    let Hashing { inner, hash } = out;
    drop(inner);
    let got = hex(&hash.finalize());
    if got != sha {
        return Err(Error::failed(format!(
            "{flag} {url}: the bytes received hash to {got}, not to the address (nothing kept)"
        )));
    }
    // Read whole before it is kept: a trace that does not read back is not cached.
    crate::workload::trace::verify(tmp.path()).map_err(|e| {
        Error::input(format!(
            "{flag} {url}: {}",
            e.to_string()
                .replace(&tmp.path().display().to_string(), "the fetched trace")
        ))
    })?;
    tmp.persist(&cached)
        .map_err(|e| Error::failed(format!("the trace cache {}: {e}", cached.display())))?;
    Ok((cached, true))
}

//! The file-level I/O trace the flash model consumes, and its compact file format (written by
//! `run --flash-trace FILE`, read by `flash replay FILE`; byte layout in `docs/flash.md`).
//!
//! ```text
//! "PBFLASH1"                       8 bytes
//! header length                    u32 LE, then that many bytes of JSON (TraceInfo)
//! records, each:
//!   tag                            u8: op (low 4 bits) | file kind << 4
//!   time delta                     varint: ns since the previous record (the first: since
//!                                  TraceInfo.t0_ns)
//!   duration                       varint: ns the call took
//!   read/write                     varint offset, varint length
//!   truncate                       varint new size
//!   mark                           varint code (0 load phase, 1 run phase)
//! trailer                          0xFF, varint record count, u32 LE CRC-32 of all bytes before
//! ```

use super::FileKind;
use crate::error::{Error, Result, ResultExt};
use crate::platform::atomic_file::AtomicFile;
use serde::{Deserialize, Serialize};
use std::io::{BufReader, Read, Write};
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"PBFLASH1";
const TRAILER: u8 = 0xFF;

/// What happened to a file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum IoOp {
    Read = 0,
    Write = 1,
    Sync = 2,
    /// `offset` holds the new size.
    Truncate = 3,
    Delete = 4,
    /// A phase boundary; `offset` holds the code ([`MARK_LOAD`], [`MARK_RUN`]).
    Mark = 5,
}

pub const MARK_LOAD: u64 = 0;
pub const MARK_RUN: u64 = 1;

impl IoOp {
    fn from_code(c: u8) -> Option<Self> {
        Some(match c {
            0 => IoOp::Read,
            1 => IoOp::Write,
            2 => IoOp::Sync,
            3 => IoOp::Truncate,
            4 => IoOp::Delete,
            5 => IoOp::Mark,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        ["read", "write", "sync", "truncate", "delete", "mark"][self as usize]
    }
}

/// One file-level I/O call. Times are CLOCK_MONOTONIC nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IoRecord {
    pub time_ns: u64,
    pub duration_ns: u64,
    pub kind: FileKind,
    pub op: IoOp,
    pub offset: u64,
    pub len: u64,
}

impl IoRecord {
    /// A record with no timing (time and duration 0), for synthetic traces: the flash model
    /// uses only the kind, operation, offset and length.
    pub fn untimed(kind: FileKind, op: IoOp, offset: u64, len: u64) -> Self {
        IoRecord {
            time_ns: 0,
            duration_ns: 0,
            kind,
            op,
            offset,
            len,
        }
    }

    pub fn mark(code: u64, time_ns: u64) -> Self {
        IoRecord {
            time_ns,
            duration_ns: 0,
            kind: FileKind::Other,
            op: IoOp::Mark,
            offset: code,
            len: 0,
        }
    }
}

/// The trace's JSON header.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct TraceInfo {
    pub tool_version: String,
    /// Engine name, version and options that produced the trace.
    pub engine: String,
    pub clock: String,
    pub t0_ns: u64,
}

fn kind_from(c: u8) -> Option<FileKind> {
    FileKind::ALL.get(usize::from(c)).copied()
}

fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// Encode `records` (appending), with times relative to `*prev_ns`, which is updated.
pub fn encode(records: &[IoRecord], prev_ns: &mut u64, out: &mut Vec<u8>) {
    for r in records {
        out.push(r.op as u8 | ((r.kind as u8) << 4));
        put_varint(out, r.time_ns.saturating_sub(*prev_ns));
        *prev_ns = (*prev_ns).max(r.time_ns);
        put_varint(out, r.duration_ns);
        match r.op {
            IoOp::Read | IoOp::Write => {
                put_varint(out, r.offset);
                put_varint(out, r.len);
            }
            IoOp::Truncate | IoOp::Mark => put_varint(out, r.offset),
            IoOp::Sync | IoOp::Delete => {}
        }
    }
}

/// Streams records into a trace file that appears only on [`TraceWriter::finish`].
pub struct TraceWriter {
    file: AtomicFile,
    crc: crc32fast::Hasher,
    prev_ns: u64,
    count: u64,
    buf: Vec<u8>,
}

impl TraceWriter {
    pub fn create(path: &Path, info: &TraceInfo) -> Result<Self> {
        let file = AtomicFile::create(path).run_err(format!("creating {}", path.display()))?;
        let json = serde_json::to_vec(info).run_err("flash trace header")?;
        let mut w = TraceWriter {
            file,
            crc: crc32fast::Hasher::new(),
            prev_ns: info.t0_ns,
            count: 0,
            buf: Vec::with_capacity(1 << 16),
        };
        w.buf.extend_from_slice(MAGIC);
        w.buf.extend_from_slice(&(json.len() as u32).to_le_bytes());
        w.buf.extend_from_slice(&json);
        w.drain()?;
        Ok(w)
    }

    pub fn write(&mut self, records: &[IoRecord]) -> Result<()> {
        encode(records, &mut self.prev_ns, &mut self.buf);
        self.count += records.len() as u64;
        if self.buf.len() >= 1 << 16 {
            self.drain()?;
        }
        Ok(())
    }

    fn drain(&mut self) -> Result<()> {
        self.crc.update(&self.buf);
        let path = self.file.path().display().to_string();
        self.file
            .writer()
            .write_all(&self.buf)
            .run_err(format!("writing {path}"))?;
        self.buf.clear();
        Ok(())
    }

    /// Write the trailer and move the file into place. Returns the record count.
    pub fn finish(mut self) -> Result<u64> {
        self.buf.push(TRAILER);
        put_varint(&mut self.buf, self.count);
        self.drain()?;
        let crc = self.crc.clone().finalize();
        let path = self.file.path().display().to_string();
        self.file
            .writer()
            .write_all(&crc.to_le_bytes())
            .run_err(format!("writing {path}"))?;
        self.file.commit().run_err(format!("writing {path}"))?;
        Ok(self.count)
    }
}

/// A whole trace read back and checked.
#[derive(Debug)]
pub struct Trace {
    pub info: TraceInfo,
    pub records: Vec<IoRecord>,
}

/// Read and verify a trace file. Anything malformed is bad input naming the file.
pub fn read(path: &Path) -> Result<Trace> {
    let name = path.display().to_string();
    let mut bytes = Vec::new();
    let max = crate::limits::MAX_FLASH_TRACE_BYTES;
    std::fs::File::open(path)
        .and_then(|f| BufReader::new(f).take(max + 1).read_to_end(&mut bytes))
        .input_err(&name)?;
    if bytes.len() as u64 > max {
        return Err(Error::input(format!(
            "{name}: flash trace above the limit of {max} bytes (see docs/limits.md)"
        )));
    }
    decode(&bytes).map_err(|m| Error::input(format!("{name}: {m}")))
}

/// Decode a flash trace held in memory (what [`read`] does after reading the file).
pub fn decode(bytes: &[u8]) -> std::result::Result<Trace, String> {
    if bytes.len() < 8 || &bytes[..8] != MAGIC {
        return Err("not a pocketbench flash trace (bad magic)".into());
    }
    // Magic, header length, checksum: anything shorter cannot be a trace.
    if bytes.len() < 16 {
        return Err("truncated: shorter than the smallest trace".into());
    }
    let (body, crc) = bytes.split_at(bytes.len() - 4);
    let want = u32::from_le_bytes(crc.try_into().map_err(|_| "truncated")?);
    if crc32fast::hash(body) != want {
        return Err("checksum mismatch: the file is truncated or damaged".into());
    }
    let hlen = u32::from_le_bytes(body[8..12].try_into().map_err(|_| "truncated")?) as usize;
    let header = body
        .get(12..12usize.saturating_add(hlen))
        .ok_or("truncated header")?;
    let info: TraceInfo = serde_json::from_slice(header).map_err(|e| format!("header: {e}"))?;
    let mut cur = Cursor {
        b: body,
        at: 12 + hlen,
    };
    let mut records = Vec::new();
    let mut t = info.t0_ns;
    loop {
        let tag = cur.byte()?;
        if tag == TRAILER {
            let n = cur.varint()?;
            if n != records.len() as u64 || cur.at != body.len() {
                return Err(format!("trailer says {n} records, found {}", records.len()));
            }
            break;
        }
        let op = IoOp::from_code(tag & 0x0F).ok_or(format!("record {}: bad op", records.len()))?;
        let kind = kind_from(tag >> 4).ok_or(format!("record {}: bad file kind", records.len()))?;
        t = t
            .checked_add(cur.varint()?)
            .ok_or(format!("record {}: time overflows", records.len()))?;
        let duration_ns = cur.varint()?;
        let (offset, len) = match op {
            IoOp::Read | IoOp::Write => (cur.varint()?, cur.varint()?),
            IoOp::Truncate | IoOp::Mark => (cur.varint()?, 0),
            IoOp::Sync | IoOp::Delete => (0, 0),
        };
        records.push(IoRecord {
            time_ns: t,
            duration_ns,
            kind,
            op,
            offset,
            len,
        });
    }
    Ok(Trace { info, records })
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn byte(&mut self) -> std::result::Result<u8, String> {
        let v = *self.b.get(self.at).ok_or("truncated record")?;
        self.at += 1;
        Ok(v)
    }

    fn varint(&mut self) -> std::result::Result<u64, String> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            v |= u64::from(b & 0x7F) << shift;
            if b & 0x80 == 0 {
                return Ok(v);
            }
        }
        Err("varint too long".into())
    }
}

//! Reads a trace block by block, checking each block's checksum before decoding it, and the
//! end block's totals and digest at the end. Only one block is in memory at a time.

use super::codec::Cursor;
use super::writer::{Digest, TAG_END, TAG_LOAD, TAG_RUN};
use super::{TraceHeader, TraceTotals, MAGIC, VERSION_1, VERSION_2};
use crate::error::{Error, Result};
use crate::limits;
use crate::workload::delay::DelayModel;
use crate::workload::model::DataModel;
use crate::workload::op::{Op, TimedOp};
use std::fs::File;
use std::io::{BufReader, ErrorKind, Read};
use std::path::{Path, PathBuf};

/// Largest header or block the reader accepts (guards against absurd lengths in corrupt files).
const MAX_FRAME_BYTES: usize = 64 * 1024 * 1024;

/// One record of a trace.
#[derive(Debug, PartialEq, Eq)]
pub enum TraceItem {
    Load(Op),
    Run(TimedOp),
}

/// What takes each block of [`TraceReader::raw_blocks`]: its tag, record count and payload.
pub type RawBlockSink<'a> = dyn FnMut(u8, u32, &[u8]) -> Result<()> + 'a;

pub struct TraceReader {
    input: BufReader<File>,
    path: PathBuf,
    header: TraceHeader,
    digest: Digest,
    block: Vec<u8>,
    pos: usize,
    block_tag: u8,
    remaining_in_block: u32,
    block_index: u64,
    seen: TraceTotals,
    totals: Option<TraceTotals>,
    saw_run: bool,
    version: u16,
    /// Connections a version 2 run record may name.
    connections: u32,
    /// The last run record's offset (version 2 offsets never go backwards).
    last_offset_ns: u64,
    /// Blocks are handed on undecoded ([`TraceReader::raw_blocks`]): the total delay is not
    /// summed, so the end block's is taken as it is.
    raw: bool,
}

impl TraceReader {
    pub fn open(path: &Path) -> Result<Self> {
        let file = File::open(path)
            .map_err(|e| Error::input(format!("{}: cannot open trace: {e}", path.display())))?;
        let mut input = BufReader::with_capacity(256 * 1024, file);
        let bad = |what: &str| {
            Error::input(format!(
                "{}: not a valid pocketbench trace: {what}",
                path.display()
            ))
        };
        let mut magic = [0u8; 8];
        read_exact(&mut input, &mut magic).map_err(|_| bad("file too short"))?;
        if &magic != MAGIC {
            return Err(bad("wrong magic bytes"));
        }
        let mut v = [0u8; 2];
        read_exact(&mut input, &mut v).map_err(|_| bad("file too short"))?;
        let version = u16::from_le_bytes(v);
        if version != VERSION_1 && version != VERSION_2 {
            return Err(Error::input(format!(
                "{}: trace format version {version} is not supported (this pocketbench reads versions {VERSION_1} and {VERSION_2})",
                path.display()
            )));
        }
        let len = read_u32(&mut input).map_err(|_| bad("header cut short"))? as usize;
        if len > MAX_FRAME_BYTES {
            return Err(bad("header length is implausible"));
        }
        let mut json = Vec::new();
        read_len(&mut input, len, &mut json).map_err(|_| bad("header cut short"))?;
        let crc = read_u32(&mut input).map_err(|_| bad("header cut short"))?;
        if crc != crc32fast::hash(&json) {
            return Err(bad("header checksum mismatch"));
        }
        let header: TraceHeader =
            serde_json::from_slice(&json).map_err(|e| bad(&format!("header is not valid: {e}")))?;
        check_header(&header, path)?;
        let connections = header.import.as_ref().map_or(1, |i| i.connections.max(1));
        Ok(TraceReader {
            input,
            path: path.to_path_buf(),
            header,
            digest: Digest::new(crc),
            block: Vec::new(),
            pos: 0,
            block_tag: 0,
            remaining_in_block: 0,
            block_index: 0,
            seen: TraceTotals::default(),
            totals: None,
            saw_run: false,
            version,
            connections,
            last_offset_ns: 0,
            raw: false,
        })
    }

    /// The file's format version (1 or 2).
    pub fn version(&self) -> u16 {
        self.version
    }

    pub fn header(&self) -> &TraceHeader {
        &self.header
    }

    /// The end block's totals, once the whole trace has been read.
    pub fn totals(&self) -> Option<TraceTotals> {
        self.totals
    }

    /// Every load and run block as stored (tag, record count, payload), each checked against
    /// its checksum but not decoded, then the end block's totals (its digest checked).
    pub fn raw_blocks(mut self, f: &mut RawBlockSink<'_>) -> Result<TraceTotals> {
        self.raw = true;
        while self.next_block()? {
            f(self.block_tag, self.remaining_in_block, &self.block)?;
        }
        self.totals
            .ok_or_else(|| self.corrupt("the trace ends without its end block"))
    }

    /// The next record, `Ok(None)` after the verified end block.
    pub fn next_item(&mut self) -> Result<Option<TraceItem>> {
        while self.remaining_in_block == 0 {
            if self.totals.is_some() || !self.next_block()? {
                return Ok(None);
            }
        }
        let block = std::mem::take(&mut self.block);
        let mut cursor = Cursor::new(&block[self.pos..]);
        let decoded = self.decode(&mut cursor);
        let used = cursor.position();
        self.block = block;
        let item = decoded.map_err(|why| self.corrupt(why))?;
        if let TraceItem::Run(t) = &item {
            self.seen.total_delay_ns = self.seen.total_delay_ns.saturating_add(t.delay_ns);
        }
        self.pos += used;
        self.remaining_in_block -= 1;
        if self.remaining_in_block == 0 && self.pos != self.block.len() {
            return Err(self.corrupt("trailing bytes after the last record"));
        }
        Ok(Some(item))
    }

    fn decode(&mut self, cursor: &mut Cursor<'_>) -> std::result::Result<TraceItem, &'static str> {
        let op = cursor.op()?;
        if self.version == VERSION_1 && matches!(op, Op::SqlArgs { .. }) {
            return Err("unknown operation tag");
        }
        check_op(&op, &self.header.workload.model)?;
        if self.block_tag == TAG_LOAD {
            return Ok(TraceItem::Load(op));
        }
        let delay_ns = cursor.varint()?;
        let recorded = if self.version == VERSION_2 {
            let r = cursor.recorded()?;
            if r.conn >= self.connections {
                return Err("connection number beyond the header's connections");
            }
            if r.offset_ns < self.last_offset_ns {
                return Err("recorded offsets go backwards");
            }
            self.last_offset_ns = r.offset_ns;
            Some(r)
        } else {
            None
        };
        Ok(TraceItem::Run(TimedOp {
            op,
            delay_ns,
            recorded,
        }))
    }

    /// Read and check the next block; false at the (verified) end block.
    fn next_block(&mut self) -> Result<bool> {
        let mut frame = [0u8; 13];
        read_exact(&mut self.input, &mut frame).map_err(|_| {
            self.corrupt_at_block("truncated: the trace ends without its end block")
        })?;
        let tag = frame[0];
        let count = u32::from_le_bytes(frame[1..5].try_into().unwrap_or_default());
        let len = u32::from_le_bytes(frame[5..9].try_into().unwrap_or_default()) as usize;
        let crc = u32::from_le_bytes(frame[9..13].try_into().unwrap_or_default());
        if len > MAX_FRAME_BYTES {
            return Err(self.corrupt_at_block("block length is implausible"));
        }
        read_len(&mut self.input, len, &mut self.block)
            .map_err(|_| self.corrupt_at_block("truncated in the middle of a block"))?;
        if crc32fast::hash(&self.block) != crc {
            return Err(self.corrupt_at_block("block checksum mismatch"));
        }
        self.block_index += 1;
        self.pos = 0;
        match tag {
            TAG_LOAD | TAG_RUN => {
                if tag == TAG_LOAD && self.saw_run {
                    return Err(self.corrupt("load block after run blocks"));
                }
                self.saw_run |= tag == TAG_RUN;
                self.digest.add_block(tag, count, len as u32, crc);
                self.block_tag = tag;
                self.remaining_in_block = count;
                if tag == TAG_LOAD {
                    self.seen.load_ops += u64::from(count);
                } else {
                    self.seen.run_ops += u64::from(count);
                }
                Ok(true)
            }
            TAG_END => {
                self.check_end_block()?;
                Ok(false)
            }
            _ => Err(self.corrupt("unknown block tag")),
        }
    }

    fn check_end_block(&mut self) -> Result<()> {
        if self.block.len() != 32 {
            return Err(self.corrupt("end block has the wrong size"));
        }
        let word = |i: usize| {
            u64::from_le_bytes(self.block[i * 8..i * 8 + 8].try_into().unwrap_or_default())
        };
        let totals = TraceTotals {
            load_ops: word(0),
            run_ops: word(1),
            total_delay_ns: word(2),
            digest: word(3),
        };
        if totals.load_ops != self.seen.load_ops
            || totals.run_ops != self.seen.run_ops
            || (!self.raw && totals.total_delay_ns != self.seen.total_delay_ns)
        {
            return Err(self.corrupt("operation counts or total delay do not match the end block"));
        }
        if totals.digest != self.digest.value() {
            return Err(self.corrupt("digest does not match the blocks"));
        }
        let mut probe = [0u8; 1];
        if matches!(self.input.read(&mut probe), Ok(n) if n > 0) {
            return Err(self.corrupt("data after the end block"));
        }
        self.totals = Some(totals);
        Ok(())
    }

    fn corrupt(&self, why: &str) -> Error {
        Error::input(format!(
            "{}: corrupt trace (block {}): {why}",
            self.path.display(),
            self.block_index
        ))
    }

    fn corrupt_at_block(&self, why: &str) -> Error {
        Error::input(format!(
            "{}: corrupt trace (after block {}): {why}",
            self.path.display(),
            self.block_index
        ))
    }
}

impl Iterator for TraceReader {
    type Item = Result<TraceItem>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_item().transpose()
    }
}

/// A header whose checksum is right can still describe something absurd: refuse sizes above
/// the limits (docs/limits.md) and delay models that do not parse, naming the field.
fn check_header(header: &TraceHeader, path: &Path) -> Result<()> {
    crate::workload::bounds::check_info(
        &header.workload,
        &format!("{}: trace header: ", path.display()),
    )?;
    if let Some(i) = &header.import {
        limits::at_most(
            &format!("{}: trace header: import.connections", path.display()),
            u64::from(i.connections),
            limits::MAX_CONNECTIONS,
        )?;
    }
    DelayModel::parse_as(&header.delay, "delay")
        .map(|_| ())
        .map_err(|e| Error::input(format!("{}: trace header: {e}", path.display())))
}

/// An operation must fit the trace's own data model and the limits (what a reader refuses; a
/// writer checks with it before writing what it did not make itself).
pub fn check_op(op: &Op, model: &DataModel) -> std::result::Result<(), &'static str> {
    let fields = match model {
        DataModel::KeyValue(m) => m.field_count,
        DataModel::Sql => 0,
    };
    match op {
        Op::Scan { len, .. } if *len == 0 || *len > limits::MAX_SCAN_LENGTH => {
            Err("scan length is 0 or above the limit")
        }
        Op::Update { field: Some(f), .. } | Op::ReadModifyWrite { field: Some(f), .. }
            if *f >= fields =>
        {
            Err("field index beyond the header's field_count")
        }
        Op::Sql { sql } | Op::SqlArgs { sql, .. } if sql.len() as u64 > limits::MAX_SQL_BYTES => {
            Err("SQL statement above the size limit")
        }
        Op::Sql { sql } | Op::SqlArgs { sql, .. }
            if memchr::memchr(0, sql.as_bytes()).is_some() =>
        {
            Err("SQL statement contains a NUL byte")
        }
        _ => Ok(()),
    }
}

fn read_exact(input: &mut impl Read, buf: &mut [u8]) -> std::io::Result<()> {
    input.read_exact(buf).map_err(|e| {
        if e.kind() == ErrorKind::UnexpectedEof {
            std::io::Error::new(ErrorKind::UnexpectedEof, "truncated")
        } else {
            e
        }
    })
}

/// Replace `buf`'s contents with the next `len` bytes of `input`. The buffer grows as bytes
/// arrive, so a length field that promises more than the file holds costs what the file holds,
/// not the up to [`MAX_FRAME_BYTES`] it promised.
fn read_len(input: &mut impl Read, len: usize, buf: &mut Vec<u8>) -> std::io::Result<()> {
    buf.clear();
    input.take(len as u64).read_to_end(buf)?;
    if buf.len() == len {
        Ok(())
    } else {
        Err(std::io::Error::new(ErrorKind::UnexpectedEof, "truncated"))
    }
}

fn read_u32(input: &mut impl Read) -> std::io::Result<u32> {
    let mut b = [0u8; 4];
    read_exact(input, &mut b)?;
    Ok(u32::from_le_bytes(b))
}

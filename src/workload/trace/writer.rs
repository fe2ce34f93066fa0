//! Writes a trace: header, then load blocks, then run blocks, then the end block. Records are
//! buffered into blocks of about 64 KiB, so memory stays flat whatever the trace length. The
//! file is written under a temporary name and renamed into place by [`TraceWriter::finish`], so
//! a failed generation never leaves a half-written trace behind. A scratch trace (a work file
//! in a command's own temporary folder) is written plainly, and its blocks can be appended
//! to another trace as they are stored ([`TraceWriter::append_written`]).

use super::codec::{put_op, put_recorded, put_varint};
use super::{TraceHeader, TraceTotals, MAGIC, VERSION_1, VERSION_2};
use crate::error::{Error, Result, ResultExt};
use crate::platform::atomic_file::AtomicFile;
use crate::workload::keys::{FNV_OFFSET_BASIS_64, FNV_PRIME_64};
use crate::workload::op::{Op, TimedOp};
use std::io::Write;
use std::path::Path;

pub(super) const BLOCK_TARGET_BYTES: usize = 64 * 1024;
pub(super) const TAG_LOAD: u8 = b'L';
pub(super) const TAG_RUN: u8 = b'R';
pub(super) const TAG_END: u8 = b'E';

/// Folds block checksums into the trace digest (FNV-1a-64 over 64-bit words).
#[derive(Clone, Copy)]
pub(super) struct Digest(u64);

impl Digest {
    pub fn new(header_crc: u32) -> Self {
        let mut d = Digest(FNV_OFFSET_BASIS_64);
        d.add(u64::from(header_crc));
        d
    }

    pub fn add(&mut self, word: u64) {
        for b in word.to_le_bytes() {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(FNV_PRIME_64);
        }
    }

    pub fn add_block(&mut self, tag: u8, count: u32, len: u32, crc: u32) {
        self.add(u64::from(tag) << 32 | u64::from(count));
        self.add(u64::from(len) << 32 | u64::from(crc));
    }

    pub fn value(self) -> u64 {
        self.0
    }
}

/// The blocks a scratch trace holds: its file, the byte range they lie in, what they total.
#[derive(Debug)]
pub struct Blocks {
    pub path: std::path::PathBuf,
    pub version: u16,
    start: u64,
    end: u64,
    pub totals: TraceTotals,
}

pub struct TraceWriter {
    out: AtomicFile,
    /// Where the first block starts (the header's end).
    blocks_start: u64,
    block: Vec<u8>,
    block_tag: u8,
    block_count: u32,
    digest: Digest,
    totals: TraceTotals,
    version: u16,
}

impl TraceWriter {
    /// Start a trace of format `version` (1 or 2) at `path`.
    pub fn create(path: &Path, header: &TraceHeader, version: u16) -> Result<Self> {
        let out =
            AtomicFile::create(path).input_err(format!("cannot write trace {}", path.display()))?;
        Self::start(out, path, header, version)
    }

    /// A scratch trace at `path`, in a folder of the command's own: not synced nor renamed
    /// into place; [`TraceWriter::finish_scratch`] says where its blocks lie, for
    /// [`TraceWriter::append_written`].
    pub fn scratch(path: &Path, header: &TraceHeader, version: u16) -> Result<Self> {
        let out = AtomicFile::scratch(path)
            .input_err(format!("cannot write trace {}", path.display()))?;
        Self::start(out, path, header, version)
    }

    fn start(mut out: AtomicFile, path: &Path, header: &TraceHeader, version: u16) -> Result<Self> {
        if version != VERSION_1 && version != VERSION_2 {
            return Err(Error::failed(format!(
                "trace writer: no format version {version}"
            )));
        }
        let json = serde_json::to_vec(header).run_err("trace header")?;
        let header_crc = crc32fast::hash(&json);
        let w = out.writer();
        [
            &MAGIC[..],
            &version.to_le_bytes(),
            &(json.len() as u32).to_le_bytes(),
            &json,
            &header_crc.to_le_bytes(),
        ]
        .iter()
        .try_for_each(|part| w.write_all(part))
        .run_err(format!("writing trace {}", path.display()))?;
        Ok(TraceWriter {
            blocks_start: out.written(),
            out,
            block: Vec::with_capacity(BLOCK_TARGET_BYTES + 4096),
            block_tag: TAG_LOAD,
            block_count: 0,
            digest: Digest::new(header_crc),
            totals: TraceTotals::default(),
            version,
        })
    }

    /// Append a load-phase operation. Must come before every run-phase operation.
    pub fn write_load(&mut self, op: &Op) -> Result<()> {
        if self.totals.run_ops > 0 {
            return Err(Error::failed(
                "trace writer: load operation after run operations",
            ));
        }
        self.check_op(op)?;
        self.switch_to(TAG_LOAD)?;
        put_op(&mut self.block, op);
        self.totals.load_ops += 1;
        self.record_added()
    }

    /// Append a run-phase operation with the delay that follows it. Version 2 also writes
    /// its place in the recording (connection 0 at offset 0 when it has none); version 1
    /// leaves that out.
    pub fn write_run(&mut self, item: &TimedOp) -> Result<()> {
        self.check_op(&item.op)?;
        self.switch_to(TAG_RUN)?;
        put_op(&mut self.block, &item.op);
        put_varint(&mut self.block, item.delay_ns);
        if self.version == VERSION_2 {
            put_recorded(&mut self.block, &item.recorded.unwrap_or_default());
        }
        self.totals.run_ops += 1;
        self.totals.total_delay_ns = self.totals.total_delay_ns.saturating_add(item.delay_ns);
        self.record_added()
    }

    /// Append every block of `work`, a trace of this writer's format version, as it is stored
    /// (records not decoded and encoded again): the same records as writing each of them, in
    /// the same blocks, under this writer's header and so its digest.
    pub fn append_blocks(&mut self, work: super::TraceReader) -> Result<()> {
        if work.version() != self.version {
            return Err(Error::failed(format!(
                "trace writer: blocks of a version {} trace appended to version {}",
                work.version(),
                self.version
            )));
        }
        self.flush_block()?;
        let totals = work.raw_blocks(&mut |tag, count, payload| {
            if tag == TAG_LOAD && self.totals.run_ops > 0 {
                return Err(Error::failed(
                    "trace writer: load operation after run operations",
                ));
            }
            let crc = crc32fast::hash(payload);
            self.digest.add_block(tag, count, payload.len() as u32, crc);
            self.write_frame(tag, count, payload, crc)?;
            match tag {
                TAG_LOAD => self.totals.load_ops += u64::from(count),
                _ => self.totals.run_ops += u64::from(count),
            }
            self.block_tag = tag;
            Ok(())
        })?;
        self.totals.total_delay_ns = self
            .totals
            .total_delay_ns
            .saturating_add(totals.total_delay_ns);
        Ok(())
    }

    /// Append the blocks of a scratch trace of this writer's format version, as they are
    /// stored: the bytes copied by the kernel, each block's frame read for the digest; the
    /// same trace as [`TraceWriter::append_blocks`] makes of them.
    pub fn append_written(&mut self, blocks: &Blocks) -> Result<()> {
        use std::io::{BufReader, Read, Seek, SeekFrom};
        if blocks.version != self.version {
            return Err(Error::failed(format!(
                "trace writer: blocks of a version {} trace appended to version {}",
                blocks.version, self.version
            )));
        }
        self.flush_block()?;
        let from = blocks.path.display().to_string();
        let bad = |e: std::io::Error| Error::failed(format!("reading trace {from}: {e}"));
        let mut input =
            BufReader::with_capacity(4096, std::fs::File::open(&blocks.path).map_err(bad)?);
        input.seek(SeekFrom::Start(blocks.start)).map_err(bad)?;
        let mut at = blocks.start;
        let mut frame = [0u8; 13];
        while at < blocks.end {
            input.read_exact(&mut frame).map_err(bad)?;
            let word =
                |i: usize| u32::from_le_bytes([frame[i], frame[i + 1], frame[i + 2], frame[i + 3]]);
            let (tag, count, len, crc) = (frame[0], word(1), word(5), word(9));
            if tag == TAG_LOAD && self.totals.run_ops > 0 {
                return Err(Error::failed(
                    "trace writer: load operation after run operations",
                ));
            }
            self.digest.add_block(tag, count, len, crc);
            match tag {
                TAG_LOAD => self.totals.load_ops += u64::from(count),
                _ => self.totals.run_ops += u64::from(count),
            }
            self.block_tag = tag;
            input.seek_relative(i64::from(len)).map_err(bad)?;
            at += 13 + u64::from(len);
        }
        if at != blocks.end {
            return Err(Error::failed(format!(
                "trace {from}: blocks end past their end"
            )));
        }
        let path = self.out.path().display().to_string();
        self.out
            .append_from(&blocks.path, blocks.start, blocks.end - blocks.start)
            .run_err(format!("writing trace {path}"))?;
        self.totals.total_delay_ns = self
            .totals
            .total_delay_ns
            .saturating_add(blocks.totals.total_delay_ns);
        Ok(())
    }

    /// [`TraceWriter::finish`] of a scratch trace: where its blocks lie.
    pub fn finish_scratch(mut self) -> Result<Blocks> {
        self.flush_block()?;
        let (path, version) = (self.out.path().to_path_buf(), self.version);
        let (start, end) = (self.blocks_start, self.out.written());
        let totals = self.finish()?;
        Ok(Blocks {
            path,
            version,
            start,
            end,
            totals,
        })
    }

    /// Flush the last block, write the end block, and move the file into place.
    pub fn finish(self) -> Result<TraceTotals> {
        self.finish_sized().map(|(totals, _)| totals)
    }

    /// [`TraceWriter::finish`], also saying how many bytes the trace is.
    pub fn finish_sized(mut self) -> Result<(TraceTotals, u64)> {
        self.flush_block()?;
        self.totals.digest = self.digest.value();
        let mut payload = Vec::with_capacity(32);
        for v in [
            self.totals.load_ops,
            self.totals.run_ops,
            self.totals.total_delay_ns,
            self.totals.digest,
        ] {
            payload.extend_from_slice(&v.to_le_bytes());
        }
        let crc = crc32fast::hash(&payload);
        self.write_frame(TAG_END, 0, &payload, crc)?;
        let path = self.out.path().display().to_string();
        let bytes = self.out.written();
        self.out.commit().run_err(format!("writing trace {path}"))?;
        Ok((self.totals, bytes))
    }

    fn check_op(&self, op: &Op) -> Result<()> {
        if self.version == VERSION_1 && matches!(op, Op::SqlArgs { .. }) {
            return Err(Error::failed(
                "trace writer: a statement with bound arguments needs format version 2",
            ));
        }
        Ok(())
    }

    fn switch_to(&mut self, tag: u8) -> Result<()> {
        if self.block_tag != tag {
            self.flush_block()?;
            self.block_tag = tag;
        }
        Ok(())
    }

    fn record_added(&mut self) -> Result<()> {
        self.block_count += 1;
        if self.block.len() >= BLOCK_TARGET_BYTES {
            self.flush_block()?;
        }
        Ok(())
    }

    fn flush_block(&mut self) -> Result<()> {
        if self.block_count == 0 {
            return Ok(());
        }
        let payload = std::mem::take(&mut self.block);
        let crc = crc32fast::hash(&payload);
        self.digest
            .add_block(self.block_tag, self.block_count, payload.len() as u32, crc);
        self.write_frame(self.block_tag, self.block_count, &payload, crc)?;
        self.block = payload;
        self.block.clear();
        self.block_count = 0;
        Ok(())
    }

    /// Write one block, `crc` being its payload's checksum.
    fn write_frame(&mut self, tag: u8, count: u32, payload: &[u8], crc: u32) -> Result<()> {
        let mut frame = [0u8; 13];
        frame[0] = tag;
        frame[1..5].copy_from_slice(&count.to_le_bytes());
        frame[5..9].copy_from_slice(&(payload.len() as u32).to_le_bytes());
        frame[9..13].copy_from_slice(&crc.to_le_bytes());
        let path = self.out.path().display().to_string();
        let w = self.out.writer();
        w.write_all(&frame)
            .and_then(|_| w.write_all(payload))
            .run_err(format!("writing trace {path}"))
    }
}

//! Exports: one CSV row per operation (`--raw FILE.csv`), written as an [`AtomicFile`] so a
//! failed run never leaves half a file.

use crate::error::{Result, ResultExt};
use crate::platform::atomic_file::AtomicFile;
use crate::run::sample::OpSample;
use std::io::Write;
use std::path::Path;

pub const CSV_HEADER: &str = "seq,kind,ok,key,intended_ns,start_ns,end_ns,latency_ns,response_ns,cpu_ns,off_cpu_ns,sleep_requested_ns,sleep_actual_ns,io_reads,io_read_bytes,io_read_ns,io_writes,io_write_bytes,io_write_ns,io_syncs,io_sync_ns,io_truncates,io_truncate_ns,freq_khz";

pub struct CsvWriter {
    out: AtomicFile,
}

impl CsvWriter {
    pub fn create(path: &Path) -> Result<Self> {
        let mut out = AtomicFile::create(path).input_err(format!("--raw {}", path.display()))?;
        writeln!(out.writer(), "{CSV_HEADER}").run_err(format!("writing {}", path.display()))?;
        Ok(CsvWriter { out })
    }

    /// One row; times relative to `t0_ns`.
    pub fn row(&mut self, s: &OpSample, t0_ns: u64) -> Result<()> {
        write_row(self.out.writer(), s, t0_ns)
            .run_err(format!("writing {}", self.out.path().display()))
    }

    pub fn finish(self) -> Result<()> {
        let path = self.out.path().display().to_string();
        self.out.commit().run_err(format!("writing {path}"))
    }
}

/// One CSV row in [`CSV_HEADER`]'s column order; times relative to `t0_ns`.
fn write_row(out: &mut impl Write, s: &OpSample, t0_ns: u64) -> std::io::Result<()> {
    let rel = |t: u64| t.saturating_sub(t0_ns);
    write!(
        out,
        "{},{},{},{},{},{},{},{},{},{},{},{},{}",
        s.seq,
        s.kind().name(),
        u8::from(s.ok),
        s.key,
        rel(s.intended_ns),
        rel(s.start_ns),
        rel(s.end_ns),
        s.latency_ns(),
        s.response_ns(),
        s.cpu_ns,
        s.off_cpu_ns(),
        s.sleep_requested_ns,
        s.sleep_actual_ns,
    )?;
    for v in s.io.to_array() {
        write!(out, ",{v}")?;
    }
    writeln!(out, ",{}", s.freq_khz)
}

//! The per-operation CSV (`--raw FILE.csv`): one row per operation, written with the `csv`
//! crate as an atomic file, so a failed run never leaves half a file.

use crate::error::{Result, ResultExt};
use crate::platform::atomic_file::AtomicCsv;
use crate::run::sample::OpSample;
use std::path::Path;

pub const CSV_HEADER: &str = "seq,kind,ok,key,intended_ns,start_ns,end_ns,latency_ns,response_ns,cpu_ns,off_cpu_ns,sleep_requested_ns,sleep_actual_ns,io_reads,io_read_bytes,io_read_ns,io_writes,io_write_bytes,io_write_ns,io_syncs,io_sync_ns,io_truncates,io_truncate_ns,freq_khz";

pub struct CsvWriter {
    out: AtomicCsv,
    path: String,
}

impl CsvWriter {
    pub fn create(path: &Path) -> Result<Self> {
        let header: Vec<&str> = CSV_HEADER.split(',').collect();
        let out =
            AtomicCsv::create(path, &header).input_err(format!("--raw {}", path.display()))?;
        Ok(CsvWriter {
            out,
            path: path.display().to_string(),
        })
    }

    /// One row in [`CSV_HEADER`]'s column order; times relative to `t0_ns`.
    pub fn row(&mut self, s: &OpSample, t0_ns: u64) -> Result<()> {
        let rel = |t: u64| t.saturating_sub(t0_ns);
        let o = &mut self.out;
        let write = |o: &mut AtomicCsv| -> std::io::Result<()> {
            o.field(s.seq)?;
            o.field(s.kind().name())?;
            o.field(u8::from(s.ok))?;
            for v in [
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
            ] {
                o.field(v)?;
            }
            for v in s.io.to_array() {
                o.field(v)?;
            }
            o.field(s.freq_khz)?;
            o.end_row()
        };
        write(o).run_err(format!("writing {}", self.path))
    }

    pub fn finish(self) -> Result<()> {
        let path = self.path;
        self.out.commit().run_err(format!("writing {path}"))
    }
}

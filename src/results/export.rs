//! Exports: one CSV row per operation (`--raw FILE.csv`). Written under a temporary name and
//! renamed when complete, so a failed run never leaves half a file.

use crate::error::{Result, ResultExt};
use crate::run::sample::OpSample;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

pub const CSV_HEADER: &str = "seq,kind,ok,key,intended_ns,start_ns,end_ns,latency_ns,response_ns,cpu_ns,off_cpu_ns,sleep_requested_ns,sleep_actual_ns,io_reads,io_read_bytes,io_read_ns,io_writes,io_write_bytes,io_write_ns,io_syncs,io_sync_ns,io_truncates,io_truncate_ns,freq_khz";

pub struct CsvWriter {
    out: BufWriter<File>,
    temp: PathBuf,
    path: PathBuf,
}

impl CsvWriter {
    pub fn create(path: &Path) -> Result<Self> {
        let temp = path.with_extension("csv.partial");
        let file = File::create(&temp).input_err(format!("--raw {}", path.display()))?;
        let mut out = BufWriter::with_capacity(1 << 20, file);
        writeln!(out, "{CSV_HEADER}").run_err(format!("writing {}", path.display()))?;
        Ok(CsvWriter {
            out,
            temp,
            path: path.to_path_buf(),
        })
    }

    /// One row; times relative to `t0_ns`.
    pub fn row(&mut self, s: &OpSample, t0_ns: u64) -> Result<()> {
        let rel = |t: u64| t.saturating_sub(t0_ns);
        let io = &s.io;
        writeln!(
            self.out,
            "{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{},{}",
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
            io.reads,
            io.read_bytes,
            io.read_ns,
            io.writes,
            io.write_bytes,
            io.write_ns,
            io.syncs,
            io.sync_ns,
            io.truncates,
            io.truncate_ns,
            s.freq_khz
        )
        .run_err(format!("writing {}", self.path.display()))
    }

    pub fn finish(mut self) -> Result<()> {
        self.out
            .flush()
            .run_err(format!("writing {}", self.path.display()))?;
        std::fs::rename(&self.temp, &self.path)
            .run_err(format!("writing {}", self.path.display()))?;
        self.temp = PathBuf::new();
        Ok(())
    }
}

impl Drop for CsvWriter {
    fn drop(&mut self) {
        if !self.temp.as_os_str().is_empty() {
            let _ = std::fs::remove_file(&self.temp);
        }
    }
}

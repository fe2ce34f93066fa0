//! Traces: a pre-generated workload (initial data set, operation stream and delays) in a
//! versioned, checksummed, streaming binary file. A run always replays a trace, so a run can be
//! repeated exactly, on another device or years later.
//!
//! The byte layout is documented in `docs/trace-format.md`; [`codec`] encodes single records,
//! [`writer`] and [`reader`] frame them into checksummed blocks, [`show`] prints a trace.

pub mod codec;
pub mod reader;
pub mod show;
pub mod writer;

use crate::error::{Error, Result};
use crate::workload::delay::DelayModel;
use crate::workload::{Workload, WorkloadInfo};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;

pub use reader::{TraceItem, TraceReader};
pub use writer::TraceWriter;

/// File magic: identifies a pocketbench trace.
pub const MAGIC: &[u8; 8] = b"PBTRACE\n";

/// Whether `path` starts as a pocketbench trace does.
pub fn is_trace(path: &std::path::Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path)
        .and_then(|mut f| f.read_exact(&mut magic))
        .is_ok()
        && &magic == MAGIC
}
/// Format version 1: operations and delays. `trace gen` writes it.
pub const VERSION_1: u16 = 1;
/// Format version 2: adds SQL with typed bound arguments and, on every run record, the
/// connection, recorded offset and recorded duration. `trace import` writes it (unless the
/// trace uses nothing of it: `--args inline --merge-connections`).
pub const VERSION_2: u16 = 2;

/// Everything needed to interpret and reproduce a trace. Serialized as JSON in the file header
/// (deterministically: fixed field order, sorted maps, no timestamps).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TraceHeader {
    pub workload: WorkloadInfo,
    /// Delay model that produced the run-phase delays (`recorded` for a recorded workload).
    pub delay: String,
    pub seed: u64,
    /// Tool name and version that wrote the trace.
    pub generator: String,
    /// Where an imported trace came from; absent from generated traces.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<ImportInfo>,
}

/// What an imported trace came from and what the import did (`trace import`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ImportInfo {
    /// The front end that read the log (`jsonl`, `android-logcat`, …).
    pub format: String,
    /// The log's file name (without its directory).
    pub source: String,
    /// The database the trace replays, as the log names it.
    pub db: String,
    /// The log's other databases and their statement counts.
    #[serde(default)]
    pub other_dbs: BTreeMap<String, u64>,
    /// Connections the run records use (numbers 0 to connections − 1).
    pub connections: u32,
    /// `bind` (statements with typed arguments) or `inline` (arguments written as literals).
    pub args: String,
    /// Connection-setup PRAGMAs observed in the log (`journal_mode` → `wal`): not replayed.
    #[serde(default)]
    pub settings: BTreeMap<String, String>,
    /// Where the schema came from: `file`, `database`, `log`, `inferred` (guessed from the
    /// statements by `--infer-schema`), `log+inferred` (the log's, with the tables it lacks
    /// inferred) or `none`.
    pub schema: String,
    /// Statements left out and why.
    #[serde(default)]
    pub dropped: BTreeMap<String, u64>,
    /// What was anonymised (`literals`, `integers`, `identifiers`, `paths`); empty when nothing
    /// was.
    #[serde(default)]
    pub anonymized: Vec<String>,
}

/// Totals written in the trace's end block and checked by readers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TraceTotals {
    pub load_ops: u64,
    pub run_ops: u64,
    pub total_delay_ns: u64,
    /// 64-bit digest of the header and every block checksum: the trace's identity.
    pub digest: u64,
}

impl TraceTotals {
    /// The digest as the fixed-width hex string stored in results.
    pub fn digest_hex(&self) -> String {
        format!("{:016x}", self.digest)
    }
}

/// Write `workload` to `path` as a trace, with delays from `delay` (or the workload's own
/// recorded delays when `delay` is [`DelayModel::Recorded`]).
/// Write `workload` as a trace to `path`; its totals and how many bytes were written.
pub fn generate(
    workload: Workload,
    delay: &DelayModel,
    seed: u64,
    path: &Path,
) -> Result<(TraceTotals, u64)> {
    if matches!(delay, DelayModel::Recorded) && !workload.info.recorded_delays {
        return Err(Error::input(format!(
            "--delay recorded: workload '{}' has no recorded delays (choose zero, fixed:…, lognormal:…, exponential:… or pocketdata-ramp)",
            workload.info.name
        )));
    }
    if path.is_dir() {
        return Err(Error::input(format!(
            "-o {}: is a directory; give a file name for the trace",
            path.display()
        )));
    }
    if let Ok(crate::output::target::Target::File(at)) = crate::output::target::kind(path) {
        crate::limits::check_free_space(
            crate::limits::dir_of(&at),
            crate::workload::bounds::trace_bytes_estimate(&workload.info),
            &format!("the trace {}", path.display()),
        )?;
    }
    let mut info = workload.info;
    if !matches!(delay, DelayModel::Recorded) {
        // Leading recorded breaks are part of the recorded delays the model replaces.
        info.initial_delay_ns = 0;
    }
    let header = TraceHeader {
        workload: info,
        delay: delay.to_string(),
        seed,
        generator: crate::TOOL_VERSION.to_string(),
        import: None,
    };
    let mut writer = TraceWriter::create(path, &header, VERSION_1)?;
    for op in workload.load {
        writer.write_load(&op)?;
    }
    let mut sampler = delay.sampler(seed);
    for (index, mut item) in (0u64..).zip(workload.run) {
        if let Some(s) = sampler.as_mut() {
            item.delay_ns = s.next(index);
        }
        writer.write_run(&item)?;
    }
    writer.finish_sized()
}

/// Read a whole trace once, checking every checksum and the end block, without keeping any
/// operation. Returns the header and totals, or a bad-input error naming the file and what is
/// wrong with it.
pub fn verify(path: &Path) -> Result<(TraceHeader, TraceTotals)> {
    let mut reader = TraceReader::open(path)?;
    while reader.next_item()?.is_some() {}
    let totals = reader.totals().ok_or_else(|| {
        Error::input(format!(
            "{}: trace ended without its end block",
            path.display()
        ))
    })?;
    Ok((reader.header().clone(), totals))
}

#[cfg(test)]
mod v2_tests;

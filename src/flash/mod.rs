//! The NAND flash model fed by the database's own file-level I/O trace. The engine's I/O hook
//! (for SQLite, the VFS shim) appends records to a per-thread trace when capture is on
//! ([`crate::engine::io::capture`]); the trace can be saved ([`crate::engine::io::trace`]) and
//! replayed (by a run: [`crate::run::flash_hook`]) on a modelled device
//! ([`device`]: a minimal file system and write buffer over a page-mapped FTL, [`ftl`], with
//! greedy / cost-benefit / FIFO garbage collection, [`victims`]). The model counts page reads,
//! programs and block erases per operation and per run ([`counters`]) and is validated against
//! analytic write amplification ([`analytic`]). Every number it produces is modelled, and the
//! reports say so.

pub mod analytic;
pub mod config;
pub mod counters;
pub mod device;
pub mod ftl;
pub mod report;
pub mod victims;

#[cfg(test)]
mod tests;

use crate::engine::io::trace::{IoOp, IoRecord, MARK_LOAD, MARK_RUN};
use crate::error::{Error, Result};
use config::ModelConfig;
use counters::{Derived, EraseDistribution, FlashCounters};
use device::Device;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The label every flash result carries.
pub const MODELLED: &str =
    "modelled by pocketbench's NAND flash model from the database's file-level I/O trace; not measured on a device";

/// Counters of one phase of a trace.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct PhaseReport {
    pub records: u64,
    pub counters: FlashCounters,
    pub derived: Derived,
}

/// What replaying a trace on the model produced.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ModelReport {
    pub note: String,
    pub model: ModelConfig,
    pub description: String,
    pub trace_records: u64,
    /// `load` and `run` for traces of `pocketbench run`, else `trace`.
    pub phases: BTreeMap<String, PhaseReport>,
    /// Erase counts of every block at the end (preconditioning included).
    pub erase_counts: EraseDistribution,
    /// Per operation kind of the run phase (from `run` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub by_kind: Option<BTreeMap<String, KindReport>>,
}

/// The run phase's counters attributed to one operation kind.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct KindReport {
    pub ops: u64,
    pub counters: FlashCounters,
    /// Mean per operation: flash reads, programs, erases and modelled flash time.
    pub reads_per_op: f64,
    pub programs_per_op: f64,
    pub erases_per_op: f64,
    pub flash_us_per_op: f64,
}

impl KindReport {
    pub fn finish(&mut self) {
        let n = self.ops.max(1) as f64;
        let c = &self.counters;
        self.reads_per_op = counters::round4(c.flash_reads() as f64 / n);
        self.programs_per_op = counters::round4(c.flash_programs() as f64 / n);
        self.erases_per_op = counters::round4(c.erases as f64 / n);
        self.flash_us_per_op = counters::round4(c.flash_ns as f64 / n / 1000.0);
    }
}

/// Replay `records` on a device built from `cfg`; `on_run_record` sees each run-phase record
/// with the counters it caused. `flag` names the model option for errors.
pub fn replay(
    cfg: &ModelConfig,
    records: &[IoRecord],
    flag: &str,
    mut on_run_record: impl FnMut(&IoRecord, &FlashCounters),
) -> Result<ModelReport> {
    let mut dev = Device::new(cfg);
    let mut phases: BTreeMap<String, PhaseReport> = BTreeMap::new();
    let mut phase = "trace";
    let mut start = dev.counters();
    let mut n = 0u64;
    let close = |phases: &mut BTreeMap<String, PhaseReport>, name: &str, c: FlashCounters, n| {
        if n > 0 || c != FlashCounters::default() {
            let p = phases.entry(name.to_string()).or_default();
            p.records += n;
            p.counters += c;
        }
    };
    for r in records {
        if r.op == IoOp::Mark && (r.offset == MARK_LOAD || r.offset == MARK_RUN) {
            close(&mut phases, phase, dev.counters() - start, n);
            phase = if r.offset == MARK_LOAD { "load" } else { "run" };
            start = dev.counters();
            n = 0;
            continue;
        }
        let before = dev.counters();
        dev.apply(r)
            .map_err(|m| Error::input(format!("{flag}: {m}")))?;
        n += 1;
        if phase == "run" {
            on_run_record(r, &(dev.counters() - before));
        }
    }
    dev.flush();
    close(&mut phases, phase, dev.counters() - start, n);
    for p in phases.values_mut() {
        p.derived = p.counters.derived(cfg.page_size, cfg.pages_per_block, None);
    }
    Ok(ModelReport {
        note: MODELLED.to_string(),
        model: cfg.clone(),
        description: cfg.describe(),
        trace_records: records.len() as u64,
        phases,
        erase_counts: dev.erase_distribution(),
        by_kind: None,
    })
}

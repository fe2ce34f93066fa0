//! The flash trace inside `pocketbench run`: capture the load phase in the loading process and
//! the run phase in the replay process (streamed to a file in the work directory, the way the
//! sample spool comes back), join them into one trace (`--flash-trace FILE`), and model it
//! (`--flash-model SPEC`), attributing the run phase to operations by time: an I/O call belongs
//! to the operation whose start–end interval contains it.

use crate::engine::io::capture;
use crate::engine::io::trace::{self, IoRecord, TraceInfo, TraceWriter, MARK_LOAD, MARK_RUN};
use crate::error::Result;
use crate::flash::config::ModelConfig;
use crate::flash::{KindReport, ModelReport};
use crate::platform::clock::mono_ns;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// What `run` was asked to do with the flash model.
#[derive(Clone, Debug, Default)]
pub struct FlashRequest {
    /// Save the trace here.
    pub trace_out: Option<PathBuf>,
    /// Model the trace and put the counters in the summary.
    pub model: Option<ModelConfig>,
}

impl FlashRequest {
    pub fn wanted(&self) -> bool {
        self.trace_out.is_some() || self.model.is_some()
    }
}

/// The engine as a trace's header names it: `sqlite -o journal_mode=wal`, or `sqlite with its
/// default options`.
pub fn engine_label(engine: &str, options: &[(String, String)]) -> String {
    if options.is_empty() {
        return format!("{engine} with its default options");
    }
    let o: Vec<String> = options.iter().map(|(k, v)| format!("-o {k}={v}")).collect();
    format!("{engine} {}", o.join(" "))
}

fn info(engine: &str) -> TraceInfo {
    TraceInfo {
        tool_version: crate::TOOL_VERSION.to_string(),
        engine: engine.to_string(),
        clock: "CLOCK_MONOTONIC ns".into(),
        t0_ns: 0,
    }
}

/// Start capturing the load phase on this thread.
pub fn begin_load() {
    capture::start(None);
    capture::push(IoRecord::mark(MARK_LOAD, mono_ns()));
}

/// Mark the start of the run phase (warm runs keep capturing in the same process).
pub fn mark_run() {
    capture::push(IoRecord::mark(MARK_RUN, mono_ns()));
}

/// Stop capturing; the records captured in memory.
pub fn end() -> Result<Vec<IoRecord>> {
    capture::stop()
}

/// In the replay process: capture the run phase, streaming to `path`.
pub fn child_begin(path: &Path, engine: &str) -> Result<()> {
    let w = TraceWriter::create(path, &info(engine))?;
    capture::start(Some(w));
    mark_run();
    Ok(())
}

/// In the replay process: write the rest of the trace and close it.
pub fn child_finish() -> Result<()> {
    capture::stop().map(|_| ())
}

/// After the run: join the loading process's records with the replay process's trace file
/// (if any), save the trace, and model it with per-kind attribution from the sample spool.
pub fn finish(
    req: &FlashRequest,
    mut records: Vec<IoRecord>,
    child_trace: Option<&Path>,
    spool: &[std::path::PathBuf],
    engine: &str,
) -> Result<Option<ModelReport>> {
    if let Some(p) = child_trace {
        records.extend(trace::read(p)?.records);
    }
    if let Some(out) = &req.trace_out {
        let mut w = TraceWriter::create(out, &info(engine))?;
        w.write(&records)?;
        w.finish()?;
    }
    let Some(cfg) = &req.model else {
        return Ok(None);
    };
    let samples = crate::run::spill::samples(spool)?.collect::<Result<Vec<_>>>()?;
    let mut by_kind: BTreeMap<String, KindReport> = BTreeMap::new();
    for s in &samples {
        by_kind.entry(s.kind().name().to_string()).or_default().ops += 1;
    }
    let mut i = 0usize;
    let mut report = crate::flash::replay(cfg, &records, "--flash-model", |r, delta| {
        while i < samples.len() && samples[i].end_ns < r.time_ns {
            i += 1;
        }
        let name = match samples.get(i) {
            Some(s) if s.start_ns <= r.time_ns => s.kind().name(),
            _ => "outside operations",
        };
        by_kind.entry(name.to_string()).or_default().counters += *delta;
    })?;
    for k in by_kind.values_mut() {
        k.finish();
    }
    report.by_kind = Some(by_kind);
    Ok(Some(report))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_trace_names_its_engine_and_options_as_flags() {
        assert_eq!(
            super::engine_label("sqlite", &[]),
            "sqlite with its default options"
        );
        let o = [
            ("journal_mode".to_string(), "wal".to_string()),
            ("synchronous".to_string(), "off".to_string()),
        ];
        assert_eq!(
            super::engine_label("sqlite", &o),
            "sqlite -o journal_mode=wal -o synchronous=off"
        );
    }
}

//! Results: aggregation of a run's samples into its summary, the SQLite results store that
//! keeps every result (with its safety checks, spooling, import and schema upgrades), the
//! datasets and filters studies read, statistics across repeats, and the per-operation CSV
//! (`--raw`).

pub mod aggregate;
pub mod dataset;
pub mod device_jobs;
pub mod export;
pub mod filter;
pub mod guard;
pub mod metrics;
pub mod migrate;
pub mod repeats;
pub mod spool;
pub mod store;
pub mod suites;
pub mod summary;
pub mod tdist;

use crate::error::{Error, Result, ResultExt};
use crate::run::pacer::Pacing;
use crate::run::RunOutput;
use aggregate::Aggregator;
use export::CsvWriter;
use std::path::Path;
use store::Store;
use summary::RunSummary;

/// Stream the run's samples once: aggregate them, store them (with the summary) in one
/// transaction, and write the optional CSV. Returns the stored summary.
pub fn record(
    out: &RunOutput,
    store: &mut Store,
    raw_csv: Option<&Path>,
    keep_samples: bool,
) -> Result<RunSummary> {
    record_with(out, store, raw_csv, keep_samples, |_| Ok(()))
}

/// [`record`], and `also` writes more rows in the run's transaction before it commits (a
/// study records the run's cell this way, so the two are stored together or not at all).
pub fn record_with(
    out: &RunOutput,
    store: &mut Store,
    raw_csv: Option<&Path>,
    keep_samples: bool,
    also: impl FnOnce(&store::RunWriter<'_>) -> Result<()>,
) -> Result<RunSummary> {
    spool::test_hook();
    // A finished run the store cannot take goes to a spool file, or at last to stdout.
    let summary = store
        .follow_path()
        .and_then(|()| write_run(out, store, keep_samples, also))
        .map_err(|e| {
            spool::keep(
                store.path(),
                e,
                "run",
                |s| write_run(out, s, keep_samples, |_| Ok(())),
                || {
                    // The summary, built in memory (the samples are not part of it).
                    let mut mem = Store::open(Path::new(":memory:"))?;
                    let s = write_run(out, &mut mem, false, |_| Ok(()))?;
                    serde_json::to_value(s).run_err("run summary")
                },
            )
        })?;
    // The CSV comes after the run is safe: a CSV that cannot be written costs only itself.
    if let Some(path) = raw_csv {
        write_raw(out, path).map_err(|e| {
            Error::failed(format!(
                "{e}; the run itself is stored as #{} in {}",
                summary.id,
                store.path().display()
            ))
        })?;
    }
    Ok(summary)
}

/// `--raw`: every sample as a CSV row, with the frequency it ran at where that was sampled.
fn write_raw(out: &RunOutput, path: &Path) -> Result<()> {
    let t0 = out.report.run_start_ns;
    let mut csv = CsvWriter::create(path)?;
    let mut freq = crate::platform::cpufreq::join::open(out.platform.timeline.as_deref());
    for sample in crate::run::spill::samples(&out.spool)? {
        let mut s = sample?;
        if let Some(f) = freq.as_mut() {
            s.freq_khz = f.at(s.start_ns, s.latency_ns()).unwrap_or(0);
        }
        csv.row(&s, t0)?;
    }
    csv.finish()
}

fn write_run(
    out: &RunOutput,
    store: &mut Store,
    keep_samples: bool,
    also: impl FnOnce(&store::RunWriter<'_>) -> Result<()>,
) -> Result<RunSummary> {
    let t0 = out.report.run_start_ns;
    let mut agg = Aggregator::default();
    let mut writer = store.begin_run()?;
    let mut freq = crate::platform::cpufreq::join::open(out.platform.timeline.as_deref());
    for sample in crate::run::spill::samples(&out.spool)? {
        let mut s = sample?;
        if let Some(f) = freq.as_mut() {
            s.freq_khz = f.at(s.start_ns, s.latency_ns()).unwrap_or(0);
        }
        agg.add(&s);
        if keep_samples {
            writer.sample(&s, t0)?;
        }
    }
    let backlog = if out.pacing == Pacing::Open {
        let starts = crate::run::spill::samples(&out.spool)?
            .map_while(|s| s.ok())
            .map(|s| s.start_ns);
        let intended = crate::run::spill::samples(&out.spool)?
            .map_while(|s| s.ok())
            .map(|s| s.intended_ns);
        aggregate::max_backlog(starts, intended)
    } else {
        0
    };
    let mut summary = summary::build(out, &agg, backlog, crate::platform::clock::utc_now());
    summary.id = writer.id();
    also(&writer)?;
    if let Some(f) = &freq {
        if keep_samples {
            crate::platform::cpufreq::join::store(writer.tx(), writer.id(), t0, f.timeline())
                .run_err("results store: frequency samples")?;
        }
        if let Some(fr) = summary.frequency.as_mut() {
            fr.per_op = Some(f.finish());
        }
    }
    writer.commit(&summary)?;
    Ok(summary)
}

/// Bytes a run of `ops` operations adds to the store, over-estimated (a stored sample row
/// takes about 100 bytes with its index entry).
pub fn result_bytes_estimate(ops: u64, keep_samples: bool) -> u64 {
    let per_op = if keep_samples { 160 } else { 0 };
    ops.saturating_mul(per_op).saturating_add(1 << 20)
}

//! HdrHistogram interval logs (`.hlog`, log format 1.3), as YCSB's `hdrhistogram` measurement
//! writes them: one histogram per operation kind (the tag) and one-second interval of the run,
//! values in microseconds, compressed (V2 + deflate, base64). Interval start times are seconds
//! from the run's first operation. One file per run; HdrHistogram's `HistogramLogProcessor`
//! reads them.

use super::{samples, Exporter, Input, Part};
use crate::error::{Error, Result};
use hdrhistogram::serialization::interval_log::{IntervalLogWriterBuilder, Tag};
use hdrhistogram::serialization::V2DeflateSerializer;
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::time::Duration;

pub struct Hlog;

const INTERVAL_NS: u64 = 1_000_000_000;

impl Exporter for Hlog {
    fn extension(&self) -> &'static str {
        "hlog"
    }

    fn export(&self, input: &Input<'_>) -> Result<Vec<Part>> {
        let mut parts = Vec::new();
        for run in &input.data.runs {
            let intervals = intervals(input, run.id)?;
            let mut bytes = Vec::new();
            let header = format!(
                "#[pocketbench run {} ({} on {}), created {}]\n#[Histogram log format version 1.3]\n\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\",\"Interval_Compressed_Histogram\"\n",
                run.id, run.summary.workload.name, run.summary.engine.name, run.summary.created_at
            );
            bytes.extend_from_slice(header.as_bytes());
            let mut serializer = V2DeflateSerializer::new();
            let fail = |e: String| Error::failed(format!("interval log of run {}: {e}", run.id));
            let mut log = IntervalLogWriterBuilder::new()
                .begin_log_with(&mut bytes, &mut serializer)
                .map_err(|e| fail(e.to_string()))?;
            for ((second, kind), h) in &intervals {
                let tag = Tag::new(kind)
                    .ok_or_else(|| fail(format!("operation kind {kind:?} cannot be a tag")))?;
                log.write_histogram(
                    h,
                    Duration::from_secs(*second),
                    Duration::from_secs(1),
                    Some(tag),
                )
                .map_err(|e| fail(e.to_string()))?;
            }
            parts.push(Part {
                stem: format!("run-{}", run.id),
                bytes,
            });
        }
        Ok(parts)
    }
}

/// The run's histograms (µs) by (second from its first operation, operation kind).
fn intervals(input: &Input<'_>, id: i64) -> Result<BTreeMap<(u64, String), Histogram<u64>>> {
    let mut out: BTreeMap<(u64, String), Histogram<u64>> = BTreeMap::new();
    let mut first: Option<u64> = None;
    samples::each(input.store, id, |kind, start, ns| {
        let t0 = *first.get_or_insert(start);
        let second = start.saturating_sub(t0) / INTERVAL_NS;
        let h = out
            .entry((second, kind.to_string()))
            .or_insert_with(crate::stats::histogram);
        let _ = h.record((ns / 1000).max(1));
    })?;
    Ok(out)
}

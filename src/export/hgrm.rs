//! HdrHistogram's percentile distribution text (`.hgrm`), as `outputPercentileDistribution`
//! prints it with five percentile ticks per half distance and values in microseconds (recorded
//! in nanoseconds, scaled by 1 000): one file per configuration and operation kind, the service
//! time of every stored operation of the configuration's runs. HdrHistogram's plotter reads
//! these files directly.

use super::{samples, stem, Exporter, Input, Part};
use crate::error::Result;
use hdrhistogram::Histogram;
use std::collections::BTreeMap;
use std::fmt::Write as _;

pub struct Hgrm;

/// Nanoseconds per printed unit (µs).
const SCALE: f64 = 1000.0;

impl Exporter for Hgrm {
    fn extension(&self) -> &'static str {
        "hgrm"
    }

    fn export(&self, input: &Input<'_>) -> Result<Vec<Part>> {
        let data = input.data;
        let mut parts = Vec::new();
        for g in &data.groups {
            let mut kinds: BTreeMap<String, Histogram<u64>> = BTreeMap::new();
            for run in data.of(g) {
                samples::each(input.store, run.id, |kind, _, ns| {
                    let h = kinds
                        .entry(kind.to_string())
                        .or_insert_with(crate::stats::histogram);
                    let _ = h.record(ns.max(1));
                })?;
            }
            for (kind, h) in &kinds {
                let stem = if data.groups.len() == 1 {
                    stem(kind)
                } else {
                    format!("{}-{}", stem(&g.name), stem(kind))
                };
                parts.push(Part {
                    stem,
                    bytes: distribution(h).into_bytes(),
                });
            }
        }
        Ok(parts)
    }
}

/// The text of `outputPercentileDistribution(out, 5, 1000.0)` for `h` (nanoseconds).
pub fn distribution(h: &Histogram<u64>) -> String {
    let d = usize::from(h.sigfig());
    let mut o = String::new();
    let _ = write!(
        o,
        "{:>12} {:>14} {:>10} {:>14}\n\n",
        "Value", "Percentile", "TotalCount", "1/(1-Percentile)"
    );
    let mut total = 0u64;
    if !h.is_empty() {
        for v in h.iter_quantiles(5) {
            total += v.count_since_last_iteration();
            let value = v.value_iterated_to() as f64 / SCALE;
            let q = v.quantile_iterated_to();
            if q < 1.0 {
                let _ = writeln!(
                    o,
                    "{value:>12.d$} {q:>2.12} {total:>10} {:>14.2}",
                    1.0 / (1.0 - q)
                );
            } else {
                let _ = writeln!(o, "{value:>12.d$} {q:>1.12} {total:>10}");
            }
        }
    }
    let sub_buckets = 1u64 << (2.0 * 10f64.powi(d as i32)).log2().ceil() as u32;
    let _ = writeln!(
        o,
        "#[Mean    = {:>12.d$}, StdDeviation   = {:>12.d$}]",
        h.mean() / SCALE,
        h.stdev() / SCALE
    );
    let _ = writeln!(
        o,
        "#[Max     = {:>12.d$}, Total count    = {:>12}]",
        h.max() as f64 / SCALE,
        h.len()
    );
    let _ = writeln!(
        o,
        "#[Buckets = {:>12}, SubBuckets     = {:>12}]",
        h.buckets(),
        sub_buckets
    );
    o
}

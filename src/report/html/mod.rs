//! The study report: its figures (each an SVG document with a title, a "how to read" text and
//! an optional note), and the single self-contained HTML page that holds them with the
//! summary and environment tables — no scripts, no network, nothing external.
//!
//! * [`svg`] — the chart kit; [`scatter`], [`bars`], [`timeline`], [`lines`], [`grid`] — the
//!   figures of runs; [`imported`] — an imported trace's (`--trace`); [`flash`] — the flashbench figures; [`models`] — the data-model study;
//!   [`durability`] — speed beside safety; [`advise`] — what each candidate change saved
//! * [`page`] — the HTML page and its tables

pub mod advise;
pub mod bars;
pub mod durability;
pub mod flash;
pub mod grid;
pub mod imported;
pub mod lines;
pub mod models;
pub mod page;
pub mod scatter;
pub mod svg;
pub mod timeline;

use crate::error::Result;
use crate::results::dataset::Dataset;
use crate::results::store::Store;

/// One figure of the report.
pub struct Figure {
    /// File stem and element id: `latency-cdf`.
    pub id: &'static str,
    pub title: String,
    pub how_to_read: String,
    /// Something the reader must know (an omitted axis, a cut-off panel list).
    pub note: Option<String>,
    /// A standalone SVG document.
    pub svg: String,
}

/// Every figure, in report order: those of the runs (when any are selected), then the
/// flashbench figures (when the store holds a flashbench run), then the durability figure
/// (when it holds a durability run), the advice figure (when it holds an advice), then the
/// data-model study's (when it holds a models run).
pub fn figures(data: &Dataset, store: &Store, level: f64) -> Result<Vec<Figure>> {
    let mut out = Vec::new();
    if !data.runs.is_empty() {
        out.extend([
            scatter::latency_energy(data, level),
            bars::time_split(data, level),
            timeline::timeline(data, store)?,
            lines::cdf(data),
            grid::decision_grid(data, store, level)?,
            bars::io_counts(data, level),
        ]);
        out.extend(bars::per_kind(data, store)?);
    }
    if let Some((run, stored)) = crate::bench_suites::flashbench::report::stored(store)? {
        out.extend(flash::figures(&run, stored));
    }
    out.extend(durability::figure(store)?);
    out.extend(advise::figure(store)?);
    out.extend(models::figures(store)?);
    Ok(out)
}

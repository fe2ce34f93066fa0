//! `pocketbench compare A B`: two cells, configurations or result stores, metric by metric.

use crate::error::{Error, Result};
use crate::report::compare::{self, Side};
use crate::results::dataset::Dataset;
use crate::results::filter::Filter;
use clap::Args;
use std::path::Path;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Baseline: a results store file, or a filter over --results.
    pub a: String,
    /// Compared with A: a results store file, or a filter over --results.
    pub b: String,
    /// Results store (SQLite file).
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Confidence level of intervals and of the significance test.
    #[arg(long, default_value_t = 0.90)]
    pub confidence: f64,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn main(args: &CompareArgs) -> Result<i32> {
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        return Err(Error::input(format!(
            "--confidence {}: expected a level between 0 and 1, e.g. 0.90",
            args.confidence
        )));
    }
    let a = side(&args.a, "A", &args.results)?;
    let b = side(&args.b, "B", &args.results)?;
    let rows = compare::compare(&a, &b, args.confidence);
    if args.json {
        let value = serde_json::json!({
            "a": { "spec": a.spec, "runs": a.data.runs.iter().map(|r| r.id).collect::<Vec<_>>() },
            "b": { "spec": b.spec, "runs": b.data.runs.iter().map(|r| r.id).collect::<Vec<_>>() },
            "confidence": args.confidence,
            "metrics": rows,
        });
        super::print_json(&value)?;
    } else {
        print!("{}", compare::text(&a, &b, &rows, args.confidence));
    }
    Ok(0)
}

/// A side is a results store file (all its runs) or a filter over `--results`.
fn side(spec: &str, name: &str, results: &Path) -> Result<Side> {
    let origin = format!("compare {name} '{spec}'");
    let (store, filter) = if Path::new(spec).is_file() {
        (
            super::results::existing(Path::new(spec))?,
            Filter::default(),
        )
    } else {
        if !spec.contains('=') {
            return Err(Error::input(format!(
                "{origin}: neither a results store file nor a filter (key=value[,key=value...])"
            )));
        }
        (
            super::results::existing(results)?,
            Filter::parse(spec, &origin)?,
        )
    };
    let data = Dataset::load(&store, &filter)?;
    if data.runs.is_empty() {
        return Err(Error::input(format!(
            "{origin}: no runs match in {}",
            store.path().display()
        )));
    }
    Ok(Side {
        spec: spec.to_string(),
        data,
    })
}

//! `pocketbench compare A B`: two cells, configurations or result stores, metric by metric;
//! or, with an imported trace as A, the app's own statement durations (as its log timed them)
//! beside the replay of it that B selects, per statement shape (`report::original`).

use crate::error::{Error, Result};
use crate::report::compare::{self, Side};
use crate::results::dataset::Dataset;
use crate::results::filter::Filter;
use clap::Args;
use std::path::Path;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct CompareArgs {
    /// Baseline: a results store file, a filter over --results, or an imported trace (the
    /// durations its log gave each statement, beside the one replay of it B selects).
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
    if is_trace(Path::new(&args.a)) {
        return log_beside_replay(args);
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

/// Whether `path` is a pocketbench trace (by its magic bytes).
fn is_trace(path: &Path) -> bool {
    use std::io::Read;
    let mut magic = [0u8; 8];
    std::fs::File::open(path).is_ok_and(|mut f| f.read_exact(&mut magic).is_ok())
        && &magic == crate::workload::trace::MAGIC
}

/// `compare TRACE B`: B must select exactly one run, a replay of that trace.
fn log_beside_replay(args: &CompareArgs) -> Result<i32> {
    let (store, b) = side_in(&args.b, "B", &args.results)?;
    let [run] = b.data.runs.as_slice() else {
        return Err(Error::input(format!(
            "compare B '{}': selects {} runs; beside an imported trace's own durations it must select the one replay of it to show (e.g. run=3)",
            args.b,
            b.data.runs.len()
        )));
    };
    let beside = crate::report::original::beside(Path::new(&args.a), &store, run.id)?;
    if args.json {
        super::print_json(&beside)?;
    } else {
        print!("{}", crate::report::original::render(&beside));
    }
    Ok(0)
}

/// A side is a results store file (all its runs) or a filter over `--results`.
fn side(spec: &str, name: &str, results: &Path) -> Result<Side> {
    side_in(spec, name, results).map(|(_, side)| side)
}

/// A side and the store it was read from.
fn side_in(spec: &str, name: &str, results: &Path) -> Result<(crate::results::store::Store, Side)> {
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
    Ok((
        store,
        Side {
            spec: spec.to_string(),
            data,
        },
    ))
}

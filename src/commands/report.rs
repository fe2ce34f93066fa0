//! `pocketbench report`: the study report as HTML, figure files, or an export format.

use crate::error::{Error, Result};
use crate::report::output::{self, Format, Request};
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct ReportArgs {
    /// Results store (SQLite file).
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Only runs matching key=value[,key=value...] (alternatives with |); keys: run, study,
    /// cell, repeat, workload, engine, delay, pacing and every axis of a study.
    #[arg(long)]
    pub filter: Option<String>,
    /// Output file (html, json, csv, md; hgrm and hlog when they are one file) or directory
    /// (png, svg; hgrm and hlog when they are several files); `-` for standard output.
    /// [default: report.html, report.json, …, after --format; report/ for png and svg]
    #[arg(long, short = 'o')]
    pub output: Option<PathBuf>,
    /// Report format.
    #[arg(long, value_enum, default_value_t = Format::Html)]
    pub format: Format,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.90)]
    pub confidence: f64,
    /// Also draw this imported trace: its arrivals per connection and its top statements.
    #[arg(long)]
    pub trace: Option<PathBuf>,
    /// Print what was written (files, runs, configurations, figures) as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn main(args: &ReportArgs) -> Result<i32> {
    let format = args.format;
    if !(args.confidence > 0.0 && args.confidence < 1.0) {
        return Err(Error::input(format!(
            "--confidence {}: expected a level between 0 and 1, e.g. 0.90",
            args.confidence
        )));
    }
    let store = super::results::existing(&args.results)?;
    let out = args.output.clone().unwrap_or_else(|| {
        PathBuf::from(if format.is_directory() {
            "report".to_string()
        } else {
            format!("report.{}", format.name())
        })
    });
    output::check_output(format, &out)?;
    let t0 = std::time::Instant::now();
    let written = output::write(&Request {
        store: &store,
        filter: args.filter.as_deref(),
        format,
        output: &out,
        level: args.confidence,
        trace: args.trace.as_deref(),
    })?;
    if args.json {
        super::print_json(&written)?;
        return Ok(0);
    }
    let what = match written.files.as_slice() {
        [one] if !format.is_directory() => one.display().to_string(),
        files => format!("{} files in {}", files.len(), out.display()),
    };
    println!(
        "wrote {what}: {} runs in {} configurations, {} ms",
        written.runs,
        written.configurations,
        t0.elapsed().as_millis()
    );
    if !written.removed.is_empty() {
        println!(
            "removed {} figure(s) an earlier report wrote there that this one has not",
            written.removed.len()
        );
    }
    Ok(0)
}

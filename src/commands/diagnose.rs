//! `pocketbench diagnose`: parse the flags into a [`diagnose::Request`], run it, print the
//! answer ([`crate::diagnose`] holds the logic).

use crate::diagnose::{self, judge::Thresholds};
use crate::error::{Error, Result};
use crate::output::progress;
use crate::platform::args::PlatformArgs;
use crate::workload::delay::DelayModel;
use clap::Args;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DiagnoseArgs {
    /// Workload class (read-heavy, read-mostly, update-heavy, scan, read-modify-write, sql) or
    /// any workload `run` accepts.
    #[arg(long, short = 'w', default_value = "read-heavy")]
    pub workload: String,
    /// A trace of your own app (from `pocketbench trace gen` or a PocketData recording).
    #[arg(long, short = 't', conflicts_with = "workload")]
    pub trace: Option<PathBuf>,
    /// Operations per run (short by design).
    #[arg(long, default_value_t = 600)]
    pub ops: u64,
    /// Records in the initial data set.
    #[arg(long, default_value_t = 500)]
    pub records: u64,
    /// Delay model (default: the workload's own think time).
    #[arg(long)]
    pub delay: Option<String>,
    /// Engine to run on (see `pocketbench engines`).
    #[arg(long, short = 'e', default_value = "sqlite")]
    pub engine: String,
    /// Governors to compare (comma-separated); default: the current one and every
    /// alternative offered (performance, powersave, ondemand, schedutil, …, fixed:50%).
    #[arg(long, value_delimiter = ',')]
    pub governors: Vec<String>,
    /// Runs per governor, interleaved (their spread tells differences from noise).
    #[arg(long, default_value_t = 2)]
    pub repeats: u32,
    /// Judge runs already stored instead of running: `all` (the latest workload's runs) or ids.
    #[arg(long, value_name = "all|ID,ID,…")]
    pub from_results: Option<String>,
    /// The governor you use now (default: what the device runs now).
    #[arg(long)]
    pub current: Option<String>,
    /// Differences up to this are "no meaningful difference".
    #[arg(long, default_value = "5%")]
    pub threshold: String,
    /// Results store (SQLite file).
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
    /// No progress output on stderr.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub platform: PlatformArgs,
}

pub fn main(args: &DiagnoseArgs) -> Result<i32> {
    progress::set_quiet(args.quiet || args.json);
    let req = diagnose::Request {
        workload: args.workload.clone(),
        trace: args.trace.clone(),
        ops: args.ops,
        records: args.records,
        delay: args.delay.as_deref().map(DelayModel::parse).transpose()?,
        engine: args.engine.clone(),
        governors: args.governors.clone(),
        repeats: crate::quick::cap("--repeats", args.repeats, crate::quick::REPEATS),
        from_results: args.from_results.clone(),
        current: args.current.clone(),
        thresholds: Thresholds {
            same: parse_pct(&args.threshold)?,
            ..Default::default()
        },
        results: args.results.clone(),
        platform: args.platform.request()?,
        background: args.platform.background.clone(),
        background_cmd: args.platform.background_cmd.clone(),
    };
    let d = diagnose::diagnose(&req)?;
    if args.json {
        super::print_json(&d)?;
    } else {
        print!("{}", diagnose::render(&d));
    }
    Ok(0)
}

fn parse_pct(text: &str) -> Result<f64> {
    text.trim_end_matches('%')
        .parse::<f64>()
        .ok()
        .filter(|v| *v >= 0.0 && *v < 100.0)
        .map(|v| v / 100.0)
        .ok_or_else(|| Error::input(format!("--threshold {text}: expected a percentage like 5%")))
}

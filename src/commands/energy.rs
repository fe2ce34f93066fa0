//! `pocketbench energy import RUN FILE.csv`: integrate an external power meter's readings over
//! a stored run's measured phase and its idle baseline (using the wall-clock markers the run
//! recorded), and store the result as the run's energy, naming the meter file as the source.

use crate::error::{Error, Result, ResultExt};
use crate::platform::energy::meter::{self, Alignment};
use crate::platform::energy::{EnergyReport, Interval};
use crate::results::store::Store;
use clap::{Args, Subcommand};
use std::path::PathBuf;

#[derive(Subcommand, Debug)]
pub enum EnergyCommand {
    /// Import a power meter CSV (e.g. a Monsoon export) into a stored run.
    #[command(
        after_help = "Examples:\n  pocketbench energy import 12 monsoon.csv --meter-start 1732233100.25\n  pocketbench energy import 12 usbmeter.csv --align start\n  pocketbench energy import 12 bench.csv --offset -0.4 --voltage 3.85 --json"
    )]
    Import(ImportArgs),
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// Run id in the results store.
    pub run: i64,
    /// The meter's CSV: a time column and power, or current (with voltage or --voltage).
    pub file: PathBuf,
    /// Results store (SQLite file).
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// Unix time (seconds) of the CSV's time 0, when its timestamps are relative.
    #[arg(long, value_name = "UNIX_SECONDS", allow_hyphen_values = true)]
    pub meter_start: Option<f64>,
    /// `start`: the recording began exactly when the run's measured phase did.
    #[arg(long, value_parser = ["start"])]
    pub align: Option<String>,
    /// Seconds added to every meter timestamp (clock skew between meter and device).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub offset: f64,
    /// Supply voltage, when the CSV has current but no voltage column.
    #[arg(long)]
    pub voltage: Option<f64>,
    /// Print the output as JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub fn main(cmd: &EnergyCommand) -> Result<i32> {
    let EnergyCommand::Import(a) = cmd;
    let store = Store::open_existing(&a.results)?;
    let mut summary = store.summary(a.run)?;
    let markers = summary.markers.ok_or_else(|| {
        Error::input(format!(
            "run {}: has no time markers (stored by a pocketbench without energy support)",
            a.run
        ))
    })?;
    let file = a.file.display().to_string();
    let text = crate::limits::read_text(&a.file, &file, crate::limits::MAX_METER_CSV_BYTES)?;
    let meter_start_unix_ns = match (a.meter_start, a.align.as_deref()) {
        (Some(_), Some(_)) => {
            return Err(Error::input(
                "--meter-start and --align: give one, not both",
            ))
        }
        (Some(s), None) if s.is_finite() && s > 0.0 => Some((s * 1e9).round() as i128),
        (Some(s), None) => {
            return Err(Error::input(format!(
                "--meter-start {s}: expected Unix seconds"
            )))
        }
        (None, Some("start")) => Some(i128::from(markers.run.start_unix_ns)),
        (None, Some(other)) => {
            return Err(Error::input(format!("--align {other}: expected start")))
        }
        (None, None) => None,
    };
    if !a.offset.is_finite() {
        return Err(Error::input("--offset: expected seconds"));
    }
    if let Some(v) = a.voltage {
        if !(v.is_finite() && v > 0.0) {
            return Err(Error::input(format!("--voltage {v}: expected volts > 0")));
        }
    }
    let align = Alignment {
        meter_start_unix_ns,
        offset_ns: (a.offset * 1e9).round() as i64,
        fixed_voltage: a.voltage,
    };
    let trace = meter::parse(&text, &file, &align).map_err(Error::input)?;
    let run_uj = trace
        .energy_uj(&markers.run)
        .map_err(|e| Error::input(format!("{file}: run {}: {e}", a.run)))?;
    let mut report = EnergyReport {
        source: Some(format!(
            "meter-csv {} ({}, {} readings)",
            a.file.file_name().unwrap_or_default().to_string_lossy(),
            trace.columns,
            trace.points.len()
        )),
        run: Some(Interval::new(markers.run.duration_ns(), run_uj)),
        ..Default::default()
    };
    match markers.baseline {
        Some(w) => match trace.energy_uj(&w) {
            Ok(uj) => report.baseline = Some(Interval::new(w.duration_ns(), uj)),
            Err(e) => report.baseline_reason = Some(format!("idle baseline window: {e}")),
        },
        None => {
            report.baseline_reason =
                Some("the run recorded no idle baseline window (run with --energy meter)".into())
        }
    }
    report.compute_net(summary.ops);
    let previous = summary.energy.replace(report.clone());
    store.replace_summary(&summary).run_err("results store")?;
    if a.json {
        super::print_json(&report)?;
    } else {
        println!("run {}: energy {}", a.run, report.text());
        if let Some(p) = previous.and_then(|p| p.source) {
            println!("(replaces the run's earlier source: {p})");
        }
    }
    Ok(0)
}

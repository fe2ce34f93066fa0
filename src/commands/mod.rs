//! One handler per command: turn parsed arguments into work and print the outcome (text or
//! JSON). Handlers hold no measurement logic of their own.

pub mod compare;
pub mod diagnose;
pub mod doctor;
pub mod energy;
pub mod engines;
pub mod flash;
pub mod flashbench;
pub mod matrix;
pub mod platform;
pub mod report;
pub mod results;
pub mod run;
pub mod storage;
pub mod trace;

use crate::cli::WorkloadArgs;
use crate::error::{Error, Result};
use crate::workload::delay::DelayModel;
use crate::workload::Overrides;

/// The workload overrides given on the command line.
pub fn overrides(w: &WorkloadArgs) -> Result<Overrides> {
    if let Some(r) = w.miss_ratio {
        if !(0.0..=1.0).contains(&r) {
            return Err(Error::input(format!(
                "--miss-ratio {r}: must be between 0 and 1"
            )));
        }
    }
    Ok(Overrides {
        records: w.records,
        ops: w.ops,
        field_count: w.field_count,
        field_length: w.field_length,
        distribution: w.distribution.clone(),
        miss_ratio: w.miss_ratio,
        indexes: w.indexes.clone(),
    })
}

/// The `--delay` model, if given.
pub fn delay(w: &WorkloadArgs) -> Result<Option<DelayModel>> {
    w.delay.as_deref().map(DelayModel::parse).transpose()
}

/// Print `value` as pretty JSON on stdout.
pub fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::failed(format!("JSON output: {e}")))?;
    println!("{text}");
    Ok(())
}

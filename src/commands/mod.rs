//! The command line ([`cli`]) and one handler per command: turn parsed arguments into work and
//! print the outcome (text or JSON). Handlers hold no measurement logic of their own, and no
//! module outside `commands/` uses them.

pub mod advise;
pub mod agent;
pub mod capture;
pub mod cli;
pub mod compare;
#[cfg(feature = "completions")]
pub mod completions;
pub mod device;
pub mod diagnose;
pub mod doctor;
pub mod durability;
pub mod energy;
pub mod engines;
pub mod flash;
pub mod flashbench;
pub mod matrix;
pub mod models;
pub mod report;
pub mod results;
pub mod run;
#[cfg(feature = "server")]
pub mod serve;
pub mod storage;
pub mod submit;
pub mod trace;
pub mod version;

use crate::error::{Error, Result};

/// Print `value` as pretty JSON on stdout.
pub fn print_json(value: &impl serde::Serialize) -> Result<()> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| Error::failed(format!("JSON output: {e}")))?;
    println!("{text}");
    Ok(())
}

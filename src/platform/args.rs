//! The platform flags shared by `run` and `diagnose` (background load, frequency sampling,
//! energy source, idle baseline) and `--sysfs-root`, turned into a [`PlatformRequest`] without
//! a governor: `run` adds its `--governor`, `diagnose` sets each governor it compares. Bad
//! values are input errors naming the flag.

use crate::error::{Error, Result};
use crate::output::units::parse_duration;
use crate::platform::background;
use crate::platform::energy::Choice;
use crate::platform::session::PlatformRequest;
use crate::platform::sysfs::SYSFS_ROOT_ENV;
use clap::Args;
use std::path::Path;

#[derive(Args, Debug, Clone, Default)]
pub struct PlatformArgs {
    /// Background load during the measured phase: cpu:N[:DUTY%], io:N[:write|read][:RATE],
    /// mixed; join several with +.
    #[arg(long, value_name = "SPEC")]
    pub background: Option<String>,
    /// A command to run in the background during the measured phase (sh -c).
    #[arg(long, value_name = "COMMAND")]
    pub background_cmd: Option<String>,
    /// Period of the scaling_cur_freq sampler (e.g. 10ms), or off.
    #[arg(long, value_name = "PERIOD|off", default_value = "10ms")]
    pub freq_sample: String,
    /// Energy source: auto (best present), rapl, perf, battery, meter (an external meter's CSV
    /// imported later with `pocketbench energy import`), none.
    #[arg(long, value_enum, value_name = "SOURCE", default_value_t = Choice::Auto)]
    pub energy: Choice,
    /// Idle baseline after the run for net energy: auto (as long as the run), off, or a
    /// duration. Taken only when energy is measured.
    #[arg(long, value_name = "auto|off|DURATION", default_value = "auto")]
    pub idle_baseline: String,
}

impl PlatformArgs {
    /// The request, with no governor set.
    pub fn request(&self) -> Result<PlatformRequest> {
        let background = match &self.background {
            Some(b) => {
                background::parse(b).map_err(|e| Error::input(format!("--background {b}: {e}")))?
            }
            None => Vec::new(),
        };
        if let Some(c) = &self.background_cmd {
            if c.trim().is_empty() {
                return Err(Error::input("--background-cmd: empty command"));
            }
        }
        let freq_period_ns = match self.freq_sample.as_str() {
            "off" => 0,
            p => match parse_duration(p, "--freq-sample")? {
                0 => 0,
                n if n < 1_000_000 => {
                    return Err(Error::input(format!(
                        "--freq-sample {p}: at least 1ms (each reading costs a few µs of CPU)"
                    )))
                }
                n => n,
            },
        };
        let energy = self.energy;
        let idle_baseline_ns = match self.idle_baseline.as_str() {
            "auto" => Some(0),
            "off" => None,
            d => Some(parse_duration(d, "--idle-baseline")?),
        };
        Ok(PlatformRequest {
            governor: None,
            background,
            background_cmd: self.background_cmd.clone(),
            freq_period_ns,
            energy,
            idle_baseline_ns,
        })
    }
}

/// Apply `--sysfs-root`: every sysfs read and write of this process and its children (the
/// replay process inherits the environment) goes under it.
pub fn set_sysfs_root(root: Option<&Path>) -> Result<()> {
    if let Some(r) = root {
        if !r.is_dir() {
            return Err(Error::input(format!(
                "--sysfs-root {}: not a directory",
                r.display()
            )));
        }
        // Called first thing in main, before any thread exists.
        std::env::set_var(SYSFS_ROOT_ENV, r);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_values_name_their_flag() {
        let bad = |f: fn(&mut PlatformArgs)| {
            let mut a = PlatformArgs {
                freq_sample: "10ms".into(),

                idle_baseline: "auto".into(),
                ..Default::default()
            };
            f(&mut a);
            a.request().unwrap_err().to_string()
        };
        assert!(bad(|a| a.background = Some("gpu".into())).starts_with("--background gpu"));
        assert!(bad(|a| a.freq_sample = "10us".into()).starts_with("--freq-sample"));
        assert!(bad(|a| a.idle_baseline = "soon".into()).starts_with("--idle-baseline"));
        assert!(bad(|a| a.background_cmd = Some(" ".into())).starts_with("--background-cmd"));
    }
}

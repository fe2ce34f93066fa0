//! Energy per run, from the best source the device has, always named: RAPL through powercap
//! ([`rapl`]), the same counter through perf ([`perf`]), the battery's fuel gauge sampled and
//! integrated ([`battery`]), or an external power meter's CSV imported after the run
//! ([`meter`]). Energy is measured over the measured phase and over an idle baseline of the
//! same length right after it (same governor, same background load, no database work), and
//! reported net of that baseline — the energy the database work added. No source: energy is
//! null and the reason says why.

pub mod battery;
pub mod meter;
pub mod perf;
pub mod rapl;

use serde::{Deserialize, Serialize};
use std::path::Path;

/// A source of energy readings, sampled by the sampling thread.
pub trait Meter: Send {
    /// The source's name for results (`rapl (package-0)`, `battery BAT0 …`).
    fn describe(&self) -> String;
    /// How often it must be read.
    fn period_ns(&self) -> u64;
    /// Take one reading at `now_ns` (CLOCK_MONOTONIC).
    fn sample(&mut self, now_ns: u64);
    /// Energy between the first and last reading, µJ, or why the measurement is void.
    fn total_uj(&self) -> Result<u64, String>;
}

/// `--energy`: which source to use.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Choice {
    /// The best source present (RAPL, perf, battery), else none.
    #[default]
    Auto,
    /// No energy measurement.
    None,
    /// Intel/AMD RAPL counters (powercap).
    Rapl,
    /// perf's energy events.
    Perf,
    /// The battery's fuel gauge (power_supply).
    Battery,
    /// No internal source: an external meter's CSV will be imported (records the markers and
    /// the idle baseline window for it).
    Meter,
}

/// Sampling period of the battery gauge.
pub const BATTERY_PERIOD_NS: u64 = 100_000_000;

/// Open the meter `choice` names (for `Auto`, the first that works). `Err` holds why none
/// could be opened, naming every source tried.
pub fn open(choice: Choice, sysfs_root: &Path) -> Result<Box<dyn Meter>, String> {
    open_first(choice, sysfs_root).map(|(_, m)| m)
}

/// The concrete source `choice` resolves to here (`Auto` → the first that opens).
pub fn resolve(choice: Choice, sysfs_root: &Path) -> Result<Choice, String> {
    open_first(choice, sysfs_root).map(|(c, _)| c)
}

fn open_first(choice: Choice, sysfs_root: &Path) -> Result<(Choice, Box<dyn Meter>), String> {
    let order: Vec<Choice> = match choice {
        Choice::Auto => vec![Choice::Rapl, Choice::Perf, Choice::Battery],
        Choice::None => return Err("energy not measured (--energy none)".into()),
        Choice::Meter => {
            return Err(
                "no internal source used (--energy meter): import the meter's CSV with \
                 `pocketbench energy import`"
                    .into(),
            )
        }
        one => vec![one],
    };
    let mut why = Vec::new();
    for c in order {
        let m: Result<Box<dyn Meter>, String> = match c {
            Choice::Rapl => rapl::Rapl::open(sysfs_root).map(|m| Box::new(m) as _),
            Choice::Perf => perf::PerfEnergy::open(sysfs_root).map(|m| Box::new(m) as _),
            _ => battery::Battery::open(sysfs_root, BATTERY_PERIOD_NS).map(|m| Box::new(m) as _),
        };
        match m {
            Ok(m) => return Ok((c, m)),
            Err(e) => why.push(e),
        }
    }
    match why.len() {
        1 => Err(why.remove(0)),
        _ => Err(format!("no energy source: {}", why.join("; "))),
    }
}

/// Every source and whether it is usable here (for `doctor`).
pub fn survey(sysfs_root: &Path) -> Vec<(&'static str, Result<String, String>)> {
    let describe = |c: Choice| open(c, sysfs_root).map(|m| m.describe());
    vec![
        ("rapl", describe(Choice::Rapl)),
        ("perf", describe(Choice::Perf)),
        ("battery", describe(Choice::Battery)),
    ]
}

/// A span of time on both clocks: CLOCK_MONOTONIC for joining with samples, wall-clock
/// (Unix ns) for aligning an external meter's timestamps.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Window {
    pub start_mono_ns: u64,
    pub end_mono_ns: u64,
    pub start_unix_ns: u64,
    pub end_unix_ns: u64,
}

impl Window {
    /// The wall-clock window of a monotonic span (offset measured now; clocks are assumed not
    /// to have been stepped during the run).
    pub fn from_mono(start_mono_ns: u64, end_mono_ns: u64) -> Window {
        let offset = unix_ns() as i128 - crate::platform::clock::mono_ns() as i128;
        let unix = |m: u64| (m as i128 + offset).max(0) as u64;
        Window {
            start_mono_ns,
            end_mono_ns,
            start_unix_ns: unix(start_mono_ns),
            end_unix_ns: unix(end_mono_ns),
        }
    }

    pub fn duration_ns(&self) -> u64 {
        self.end_mono_ns.saturating_sub(self.start_mono_ns)
    }
}

/// The run's time markers (summary `markers`), so an external meter can be aligned later.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Markers {
    /// The measured phase (replay start to end).
    pub run: Window,
    /// The idle baseline right after it, when one was taken.
    pub baseline: Option<Window>,
}

/// Nanoseconds since the Unix epoch (CLOCK_REALTIME).
pub fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

/// Energy over one window.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Interval {
    pub duration_ns: u64,
    pub energy_uj: u64,
    pub mean_power_mw: f64,
}

impl Interval {
    pub fn new(duration_ns: u64, energy_uj: u64) -> Interval {
        Interval {
            duration_ns,
            energy_uj,
            mean_power_mw: if duration_ns == 0 {
                0.0
            } else {
                (energy_uj as f64 / duration_ns as f64 * 1e9).round() / 1e3
            },
        }
    }
}

/// The summary's `energy` section.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct EnergyReport {
    /// The source that measured it; `None` when nothing did.
    pub source: Option<String>,
    /// Why energy is null (or was voided).
    pub reason: Option<String>,
    pub run: Option<Interval>,
    pub baseline: Option<Interval>,
    pub baseline_reason: Option<String>,
    /// Run energy minus the baseline scaled to the run's duration, µJ (can be slightly
    /// negative when the work is lost in the noise).
    pub net_uj: Option<i64>,
    pub net_uj_per_op: Option<f64>,
}

impl EnergyReport {
    pub fn unavailable(reason: impl Into<String>) -> Self {
        EnergyReport {
            reason: Some(reason.into()),
            ..Default::default()
        }
    }

    /// Fill `net_*` from `run` and `baseline`.
    pub fn compute_net(&mut self, ops: u64) {
        self.net_uj = match (self.run, self.baseline) {
            (Some(r), Some(b)) if b.duration_ns > 0 => {
                let scaled = b.energy_uj as f64 * r.duration_ns as f64 / b.duration_ns as f64;
                Some((r.energy_uj as f64 - scaled).round() as i64)
            }
            _ => None,
        };
        self.net_uj_per_op = self
            .net_uj
            .filter(|_| ops > 0)
            .map(|n| (n as f64 / ops as f64 * 1e3).round() / 1e3);
    }

    /// One line for the terminal.
    pub fn text(&self) -> String {
        let Some(src) = &self.source else {
            return format!(
                "null: {}",
                self.reason.as_deref().unwrap_or("no energy source")
            );
        };
        let Some(run) = self.run else {
            return format!(
                "{src}: null: {}",
                self.reason.as_deref().unwrap_or("not measured")
            );
        };
        let mut t = format!(
            "{src}: {:.3} J over the run ({:.1} mW)",
            run.energy_uj as f64 / 1e6,
            run.mean_power_mw
        );
        match (self.baseline, self.net_uj) {
            (Some(b), Some(net)) => t.push_str(&format!(
                "; idle baseline {:.1} mW; net {:.3} J{}",
                b.mean_power_mw,
                net as f64 / 1e6,
                self.net_uj_per_op
                    .map(|p| format!(" ({p:.1} µJ/op)"))
                    .unwrap_or_default()
            )),
            _ => t.push_str(&format!(
                "; net: null ({})",
                self.baseline_reason.as_deref().unwrap_or("no baseline")
            )),
        }
        t
    }
}

pub(crate) fn read_text(path: &Path) -> Option<String> {
    crate::platform::cpufreq::read_trimmed(path)
}

pub(crate) fn read_u64(path: &Path) -> Option<u64> {
    read_text(path)?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn auto_picks_the_best_source_and_explains_absence() {
        let t = Tree::empty();
        let why = open(Choice::Auto, t.root()).err().unwrap();
        assert!(
            why.contains("no RAPL powercap") && why.contains("battery"),
            "{why}"
        );
        t.battery("Discharging", 100_000, 4_000_000);
        assert!(open(Choice::Auto, t.root())
            .unwrap()
            .describe()
            .starts_with("battery BAT0"));
        t.rapl(0, 5, 1_000);
        assert_eq!(
            open(Choice::Auto, t.root()).unwrap().describe(),
            "rapl (package-0)"
        );
        assert!(open(Choice::Perf, t.root()).is_err());
        assert!(open(Choice::None, t.root()).is_err());
    }

    #[test]
    fn net_energy_subtracts_the_scaled_baseline() {
        let mut r = EnergyReport {
            source: Some("rapl (package-0)".into()),
            run: Some(Interval::new(2_000_000_000, 10_000_000)),
            baseline: Some(Interval::new(1_000_000_000, 3_000_000)),
            ..Default::default()
        };
        r.compute_net(1000);
        assert_eq!(r.net_uj, Some(4_000_000));
        assert_eq!(r.net_uj_per_op, Some(4000.0));
        assert_eq!(r.run.unwrap().mean_power_mw, 5000.0);
        assert!(r.text().contains("net 4.000 J"), "{}", r.text());
        let none = EnergyReport::unavailable("no energy source: …");
        assert_eq!(none.text(), "null: no energy source: …");
    }
}

//! The platform around one run, from the parent process's side (the parent owns the governor;
//! the replay runs in a child): restore what an interrupted run left behind, set the governor,
//! pick the energy source, start the background load, tell the replay process what to observe,
//! take the idle baseline after the replay, then stop the load and restore the governor; battery
//! and thermal readings on both sides of all that. The result is the run's `governor`,
//! `frequency`, `energy`, `background`, `thermal` and `markers` sections.

use crate::error::{Error, Result};
use crate::platform::background::{self, BackgroundReport, Load};
use crate::platform::cpufreq::control::{self, Control, GovernorOutcome};
use crate::platform::cpufreq::request::GovernorRequest;
use crate::platform::cpufreq::residency::FrequencyReport;
use crate::platform::cpufreq::{self, restore};
use crate::platform::energy::{self, EnergyReport, Interval, Markers, Window};
use crate::platform::observe::{self, Observation, ObserveSpec};
use crate::platform::sysfs::sysfs_root;
use crate::platform::thermal::{self, ThermalReport};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// What the run asks of the platform.
#[derive(Clone, Debug, PartialEq)]
pub struct PlatformRequest {
    pub governor: Option<GovernorRequest>,
    pub background: Vec<Load>,
    pub background_cmd: Option<String>,
    /// Frequency sampling period; 0 = off.
    pub freq_period_ns: u64,
    pub energy: energy::Choice,
    /// Idle baseline length: `None` = none, `Some(0)` = as long as the run.
    pub idle_baseline_ns: Option<u64>,
}

impl Default for PlatformRequest {
    fn default() -> Self {
        PlatformRequest {
            governor: None,
            background: Vec::new(),
            background_cmd: None,
            freq_period_ns: observe::DEFAULT_FREQ_PERIOD_NS,
            energy: energy::Choice::Auto,
            idle_baseline_ns: Some(0),
        }
    }
}

/// The platform sections of a run's result.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PlatformOutcome {
    pub governor: GovernorOutcome,
    pub frequency: FrequencyReport,
    pub energy: EnergyReport,
    pub background: Option<BackgroundReport>,
    pub markers: Option<Markers>,
    /// Battery and thermal zones before and after, and whether the CPU was capped; `None`
    /// where none of it is readable.
    pub thermal: Option<ThermalReport>,
    /// The sampler's frequency timeline (joined to operations when the run is recorded).
    #[serde(skip)]
    pub timeline: Option<PathBuf>,
}

impl PlatformRequest {
    /// Reject what this device cannot do at all (a governor no policy offers) before anything
    /// is measured or stored.
    pub fn check(&self) -> Result<()> {
        match &self.governor {
            Some(g) => control::check(g, &cpufreq::discover(&sysfs_root())),
            None => Ok(()),
        }
    }
}

pub struct Session {
    control: Option<Control>,
    governor: GovernorOutcome,
    background: Option<background::Running>,
    energy: Option<energy::Choice>,
    energy_reason: Option<String>,
    meter_only: bool,
    idle_baseline_ns: Option<u64>,
    baseline: Option<(std::result::Result<Interval, String>, Window)>,
    freq_period_ns: u64,
    timeline: PathBuf,
    thermal_before: thermal::Reading,
}

impl Session {
    /// Prepare the platform for the measured phase. `workdir` holds the timeline and any
    /// background I/O files.
    pub fn begin(req: &PlatformRequest, workdir: &Path) -> Result<Session> {
        let root = sysfs_root();
        // Read before the governor is touched, so a frequency limit found is the device's.
        let thermal_before = thermal::read(&root);
        let cf = cpufreq::discover(&root);
        let (control, governor) = match &req.governor {
            Some(g) => {
                let c = control::apply(g, &cf, &root)?;
                let outcome = c.outcome.clone();
                (Some(c), outcome)
            }
            None => {
                let leftover = restore::restore_leftover(&root);
                let mut o = control::observe(&cf);
                o.notices.extend(leftover);
                (None, o)
            }
        };
        let (energy, energy_reason) = match energy::resolve(req.energy, &root) {
            Ok(c) => (Some(c), None),
            Err(why) => (None, Some(why)),
        };
        let background = if req.background.is_empty() && req.background_cmd.is_none() {
            None
        } else {
            Some(
                background::start(&req.background, req.background_cmd.as_deref(), workdir)
                    .map_err(Error::input)?,
            )
        };
        Ok(Session {
            control,
            governor,
            background,
            energy,
            energy_reason,
            meter_only: req.energy == energy::Choice::Meter,
            idle_baseline_ns: req.idle_baseline_ns,
            baseline: None,
            freq_period_ns: req.freq_period_ns,
            timeline: workdir.join("frequency.timeline"),
            thermal_before,
        })
    }

    /// What the replay process should observe.
    pub fn observe_spec(&self) -> ObserveSpec {
        ObserveSpec {
            freq_period_ns: self.freq_period_ns,
            energy: self.energy,
            energy_reason: self.energy_reason.clone(),
            timeline: Some(self.timeline.clone()),
        }
    }

    /// After the replay: sit idle as long as the run took (or the requested length), under the
    /// same governor and background load, measuring energy — or, with `--energy meter`, just
    /// marking the window for the external meter.
    pub fn baseline(&mut self, run_ns: u64) {
        let Some(len) = self.idle_baseline_ns else {
            return;
        };
        if self.energy.is_none() && !self.meter_only {
            return;
        }
        let len = if len == 0 { run_ns } else { len };
        crate::output::progress::phase(&format!(
            "idle baseline for {} (energy without the database work)",
            crate::output::units::ns(len)
        ));
        let t0 = crate::platform::clock::mono_ns();
        let result = match self.energy {
            Some(c) => observe::measure_idle(c, len),
            None => {
                crate::platform::clock::sleep_until(t0 + len);
                Err("external meter: import its CSV".into())
            }
        };
        let t1 = crate::platform::clock::mono_ns();
        self.baseline = Some((result, Window::from_mono(t0, t1)));
    }

    /// Stop the load, restore the governor, and assemble the platform sections from what the
    /// replay process observed during `run` (its measured phase).
    pub fn finish(
        mut self,
        observed: Option<Observation>,
        run: (u64, u64),
        ops: u64,
    ) -> PlatformOutcome {
        let background = self.background.take().map(|b| b.stop());
        let governor = match self.control.take() {
            Some(c) => c.finish(),
            None => std::mem::take(&mut self.governor),
        };
        let observed = observed.unwrap_or_default();
        let mut energy = observed.energy;
        if self.meter_only {
            energy = EnergyReport::unavailable(
                "external meter: import its CSV with `pocketbench energy import RUN FILE.csv`",
            );
        }
        match &self.baseline {
            Some((Ok(b), _)) => energy.baseline = Some(*b),
            Some((Err(e), _)) => energy.baseline_reason = Some(e.clone()),
            None => {
                energy.baseline_reason = Some(match self.idle_baseline_ns {
                    None => "no idle baseline (--idle-baseline off)".into(),
                    Some(_) => "no energy source".into(),
                })
            }
        }
        energy.compute_net(ops);
        // After the governor is restored, for the same reason as before.
        let thermal = ThermalReport::new(
            std::mem::take(&mut self.thermal_before),
            thermal::read(&sysfs_root()),
        );
        PlatformOutcome {
            thermal: (!thermal.is_empty()).then_some(thermal),
            governor,
            timeline: observed.timeline_written.then(|| self.timeline.clone()),
            frequency: observed.frequency,
            energy,
            background,
            markers: Some(Markers {
                run: Window::from_mono(run.0, run.1),
                baseline: self.baseline.as_ref().map(|(_, w)| *w),
            }),
        }
    }
}

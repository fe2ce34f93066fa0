//! What watches the measured phase from beside it, in the process that replays: a
//! `time_in_state` snapshot before and after, and one sampling thread that reads
//! `scaling_cur_freq` (and the replay thread's CPU) every period and polls the energy meter.
//! The parent describes what to observe in an [`ObserveSpec`]; the replay process hands back an
//! [`Observation`]. The idle baseline uses the same meter code ([`measure_idle`]).

use crate::platform::cpufreq::residency::{FrequencyReport, Snapshot};
use crate::platform::cpufreq::sampler::FreqProbe;
use crate::platform::cpufreq::{self, Cpufreq};
use crate::platform::energy::{self, EnergyReport, Interval, Meter};
use crate::platform::sampler::{self, Periodic};
use crate::platform::sysfs::sysfs_root;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Default frequency sampling period.
pub const DEFAULT_FREQ_PERIOD_NS: u64 = 10_000_000;

/// What to observe during the measured phase.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct ObserveSpec {
    /// `scaling_cur_freq` sampling period; 0 = no sampling.
    pub freq_period_ns: u64,
    /// Energy source to open; `None` = no internal source (the reason is in `energy_reason`).
    pub energy: Option<energy::Choice>,
    pub energy_reason: Option<String>,
    /// Where the sampler's frequency timeline is written for the parent.
    pub timeline: Option<PathBuf>,
}

/// What was observed.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Observation {
    pub start_ns: u64,
    pub end_ns: u64,
    pub frequency: FrequencyReport,
    pub energy: EnergyReport,
    /// Whether a timeline file was written.
    pub timeline_written: bool,
}

struct State {
    freq: Option<FreqProbe>,
    meter: Option<Box<dyn Meter>>,
    tick: u64,
    meter_every: u64,
    /// When the meter was first and last read: its energy covers exactly this span, so the
    /// mean power is energy over this span, not over a window timed apart from the readings.
    meter_span: Option<(u64, u64)>,
}

impl State {
    fn read_meter(&mut self, now: u64) {
        if let Some(m) = self.meter.as_mut() {
            m.sample(now);
            let first = self.meter_span.map_or(now, |(f, _)| f);
            self.meter_span = Some((first, now));
        }
    }

    fn meter_span_ns(&self) -> u64 {
        self.meter_span.map_or(0, |(f, l)| l.saturating_sub(f))
    }
}

fn tick(s: &mut State, now: u64) {
    if let Some(f) = s.freq.as_mut() {
        f.sample(now);
    }
    if s.tick.is_multiple_of(s.meter_every) {
        s.read_meter(now);
    }
    s.tick += 1;
}

pub struct Observer {
    spec: ObserveSpec,
    cf: Cpufreq,
    before: Snapshot,
    sampler: Option<Periodic<State>>,
    energy_error: Option<String>,
    start_ns: u64,
}

impl Observer {
    /// Start observing; `replay_tid` is the thread that will replay.
    pub fn start(spec: &ObserveSpec, replay_tid: i32) -> Observer {
        let cf = cpufreq::discover(&sysfs_root());
        let freq = (spec.freq_period_ns > 0)
            .then(|| FreqProbe::new(&cf, spec.freq_period_ns, Some(replay_tid)))
            .flatten();
        let (meter, energy_error) = match spec.energy {
            Some(c) => match energy::open(c, &sysfs_root()) {
                Ok(m) => (Some(m), None),
                Err(e) => (None, Some(e)),
            },
            None => (None, spec.energy_reason.clone()),
        };
        let period = if freq.is_some() {
            spec.freq_period_ns
        } else {
            meter.as_ref().map_or(0, |m| m.period_ns())
        };
        let meter_every = meter
            .as_ref()
            .map_or(1, |m| (m.period_ns() / period.max(1)).max(1));
        let before = Snapshot::take(&cf);
        let start_ns = crate::platform::clock::mono_ns();
        let sampler = (freq.is_some() || meter.is_some()).then(|| {
            let state = State {
                freq,
                meter,
                tick: 0,
                meter_every,
                meter_span: None,
            };
            sampler::start("pocketbench-sampler", period, state, tick)
        });
        Observer {
            spec: spec.clone(),
            cf,
            before,
            sampler,
            energy_error,
            start_ns,
        }
    }

    /// Stop observing and summarise.
    pub fn finish(self) -> Observation {
        let end_ns = crate::platform::clock::mono_ns();
        let after = Snapshot::take(&self.cf);
        let mut freq = FrequencyReport {
            residency: self.before.delta(&after),
            ..Default::default()
        };
        let mut energy = EnergyReport::unavailable(
            self.energy_error
                .clone()
                .unwrap_or_else(|| "energy not measured".into()),
        );
        let mut timeline_written = false;
        if let Some(s) = self.sampler {
            let (mut state, cost) = s.stop();
            if let Some(probe) = state.freq.take() {
                freq.sampled = probe.timeline.residency(&self.cf);
                freq.sampler = Some(cost);
                if let Some(path) = &self.spec.timeline {
                    match probe.timeline.write(path) {
                        Ok(()) => timeline_written = true,
                        Err(e) => freq.reason = Some(format!("timeline not written: {e}")),
                    }
                }
            }
            if state.meter.is_some() {
                // The last periodic reading may be up to a meter period old: read once more.
                state.read_meter(crate::platform::clock::mono_ns());
                let span = state.meter_span_ns();
                if let Some(m) = state.meter.as_deref() {
                    energy = meter_report(m, span);
                }
            }
        }
        let mut sources = Vec::new();
        if !freq.residency.is_empty() {
            sources.push("time_in_state");
        }
        if freq.sampler.is_some() {
            sources.push("scaling_cur_freq sampler");
        }
        freq.source = (!sources.is_empty()).then(|| sources.join(" + "));
        if freq.source.is_none() {
            freq.reason = Some(match &self.cf.missing {
                Some(m) => m.clone(),
                None if self.spec.freq_period_ns == 0 => {
                    "no stats/time_in_state and frequency sampling is off".into()
                }
                None => "cpufreq has neither stats/time_in_state nor scaling_cur_freq".into(),
            });
        }
        Observation {
            start_ns: self.start_ns,
            end_ns,
            frequency: freq,
            energy,
            timeline_written,
        }
    }
}

fn meter_report(m: &dyn Meter, duration_ns: u64) -> EnergyReport {
    match m.total_uj() {
        Ok(uj) => EnergyReport {
            source: Some(m.describe()),
            run: Some(Interval::new(duration_ns, uj)),
            ..Default::default()
        },
        Err(e) => EnergyReport {
            source: Some(m.describe()),
            reason: Some(format!("measurement void: {e}")),
            ..Default::default()
        },
    }
}

/// Energy drawn while idle for `duration_ns` (this thread sleeps; the meter is polled on the
/// sampling thread).
pub fn measure_idle(choice: energy::Choice, duration_ns: u64) -> Result<Interval, String> {
    let meter = energy::open(choice, &sysfs_root())?;
    let period = meter.period_ns();
    let state = State {
        freq: None,
        meter: Some(meter),
        tick: 0,
        meter_every: 1,
        meter_span: None,
    };
    let s = sampler::start("pocketbench-baseline", period, state, tick);
    let t0 = crate::platform::clock::mono_ns();
    crate::platform::clock::sleep_until(t0 + duration_ns);
    let (state, _) = s.stop();
    // The energy covers the first to the last reading (the sampler reads at start and at stop),
    // which is what the mean power divides by, however late this thread was scheduled.
    let span = state.meter_span_ns();
    let m = state.meter.as_ref().ok_or("meter lost")?;
    m.total_uj().map(|uj| Interval::new(span, uj))
}

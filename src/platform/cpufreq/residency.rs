//! Frequency residency: how long each policy spent at each frequency during the run. The kernel
//! keeps `stats/time_in_state` (kHz and time in USER_HZ ticks, 10 ms on almost every kernel);
//! the difference of two snapshots taken around the measured phase is exact up to that tick.
//! Without the stats, the sampler's readings of `scaling_cur_freq` give the same table
//! statistically. This module also defines the summary's `frequency` section.

use super::{Cpufreq, Policy};
use crate::platform::sampler::SamplerCost;
use crate::stats::LatencySummary;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::PathBuf;

/// The summary's `frequency` section.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FrequencyReport {
    /// `time_in_state`, `scaling_cur_freq sampler`, both joined by ` + `, or `None`.
    pub source: Option<String>,
    /// What could not be observed, and why.
    pub reason: Option<String>,
    /// Residency from `stats/time_in_state` deltas, per policy.
    pub residency: Vec<PolicyResidency>,
    /// Residency estimated from the sampler's readings, per policy.
    pub sampled: Vec<PolicyResidency>,
    /// What the sampling thread cost.
    pub sampler: Option<SamplerCost>,
    /// Each operation joined to the frequency its CPU ran at when it started.
    pub per_op: Option<PerOpFrequency>,
}

impl FrequencyReport {
    /// The residency table to show: `time_in_state` when it recorded any time (it has 10 ms
    /// ticks, so a short run can show none), else the sampler's.
    pub fn best_residency(&self) -> &[PolicyResidency] {
        if self.residency.iter().any(|p| p.total_ns > 0) || self.sampled.is_empty() {
            &self.residency
        } else {
            &self.sampled
        }
    }
}

/// Operations by the frequency at their start (from the sampler, joined by timestamp).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PerOpFrequency {
    pub ops_with_frequency: u64,
    pub ops_without: u64,
    /// Service-time percentiles (µs) of the operations that started at each frequency (kHz).
    pub latency_us_by_start_khz: BTreeMap<u64, LatencySummary>,
}

/// Time per frequency for one policy.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct PolicyResidency {
    pub policy: String,
    pub cpus: Vec<u32>,
    pub states: Vec<StateTime>,
    pub total_ns: u64,
    /// Time-weighted mean frequency.
    pub mean_khz: Option<u64>,
    /// Frequency changes (`stats/total_trans` delta; sampled: changes between readings).
    pub transitions: Option<u64>,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct StateTime {
    pub khz: u64,
    pub time_ns: u64,
    /// Fraction of the policy's total time.
    pub share: f64,
}

impl PolicyResidency {
    /// Build from (kHz, ns) pairs, dropping frequencies never used.
    pub fn from_times(
        policy: &Policy,
        times: impl IntoIterator<Item = (u64, u64)>,
        transitions: Option<u64>,
    ) -> Self {
        let mut by: BTreeMap<u64, u64> = BTreeMap::new();
        for (k, t) in times {
            *by.entry(k).or_default() += t;
        }
        let total_ns: u64 = by.values().sum();
        let weighted: u128 = by
            .iter()
            .map(|(k, t)| u128::from(*k) * u128::from(*t))
            .sum();
        PolicyResidency {
            policy: policy.name.clone(),
            cpus: policy.cpus.clone(),
            states: by
                .into_iter()
                .filter(|(_, t)| *t > 0)
                .map(|(khz, time_ns)| StateTime {
                    khz,
                    time_ns,
                    share: if total_ns == 0 {
                        0.0
                    } else {
                        (time_ns as f64 / total_ns as f64 * 1e4).round() / 1e4
                    },
                })
                .collect(),
            total_ns,
            mean_khz: (total_ns > 0).then(|| (weighted / u128::from(total_ns)) as u64),
            transitions,
        }
    }
}

/// `time_in_state` text → (kHz, ticks) pairs.
pub fn parse_time_in_state(text: &str) -> Vec<(u64, u64)> {
    text.lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
        })
        .collect()
}

/// Nanoseconds per `time_in_state` tick (1 / USER_HZ).
pub fn tick_ns() -> u64 {
    // SAFETY: sysconf has no pointer arguments.
    let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if hz > 0 {
        1_000_000_000 / hz as u64
    } else {
        10_000_000
    }
}

/// One policy's `time_in_state` ((kHz, ticks) pairs) and `total_trans`.
pub type PolicyStats = (Policy, Vec<(u64, u64)>, Option<u64>);

/// `time_in_state` and `total_trans` of every policy that has them, at one moment.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Snapshot {
    pub policies: Vec<PolicyStats>,
}

impl Snapshot {
    pub fn take(cf: &Cpufreq) -> Snapshot {
        Snapshot {
            policies: cf
                .policies
                .iter()
                .filter_map(|p| {
                    let stats: PathBuf = p.dir.join("stats");
                    let text = std::fs::read_to_string(stats.join("time_in_state")).ok()?;
                    let trans = super::read_trimmed(&stats.join("total_trans"))
                        .and_then(|v| v.parse().ok());
                    Some((p.clone(), parse_time_in_state(&text), trans))
                })
                .collect(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.policies.is_empty()
    }

    /// Residency between `self` (earlier) and `later`, per policy.
    pub fn delta(&self, later: &Snapshot) -> Vec<PolicyResidency> {
        let tick = tick_ns();
        self.policies
            .iter()
            .filter_map(|(p, before, t0)| {
                let (_, after, t1) = later.policies.iter().find(|(q, _, _)| q.name == p.name)?;
                let times = after.iter().map(|(k, a)| {
                    let b = before.iter().find(|(kb, _)| kb == k).map_or(0, |(_, v)| *v);
                    (*k, a.saturating_sub(b) * tick)
                });
                let trans = match (t0, t1) {
                    (Some(a), Some(b)) => Some(b.saturating_sub(*a)),
                    _ => None,
                };
                Some(PolicyResidency::from_times(p, times, trans))
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::cpufreq::discover;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn time_in_state_deltas_become_residency() {
        let t = Tree::big_little();
        let p0 = "devices/system/cpu/cpufreq/policy0/stats";
        t.write(
            &format!("{p0}/time_in_state"),
            "300000 100\n900000 50\n1800000 7",
        );
        t.write(&format!("{p0}/total_trans"), "40");
        let cf = discover(t.root());
        let before = Snapshot::take(&cf);
        // During the run: 30 ticks at 300 MHz, 0 at 900 MHz, 10 at 1.8 GHz, 6 transitions.
        t.write(
            &format!("{p0}/time_in_state"),
            "300000 130\n900000 50\n1800000 17",
        );
        t.write(&format!("{p0}/total_trans"), "46");
        let after = Snapshot::take(&cf);
        let res = before.delta(&after);
        assert_eq!(res.len(), 2);
        let r = &res[0];
        let tick = tick_ns();
        assert_eq!(r.policy, "policy0");
        assert_eq!(r.total_ns, 40 * tick);
        assert_eq!(r.states.len(), 2, "unused frequencies are dropped");
        assert_eq!((r.states[0].khz, r.states[0].time_ns), (300_000, 30 * tick));
        assert_eq!(r.states[0].share, 0.75);
        assert_eq!(r.states[1].share, 0.25);
        assert_eq!(r.mean_khz, Some(675_000));
        assert_eq!(r.transitions, Some(6));
        assert_eq!(res[1].total_ns, 0, "policy4 did not move");
        assert_eq!(res[1].mean_khz, None);
    }

    #[test]
    fn parses_time_in_state() {
        assert_eq!(
            parse_time_in_state("300000 5\n600000 7\n\n"),
            vec![(300_000, 5), (600_000, 7)]
        );
    }
}

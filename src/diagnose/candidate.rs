//! One candidate (a governor) from its stored runs: means of throughput and latency, energy per
//! operation (net where every run had a baseline), mean frequency, and each run's values (for the significance test).

use super::judge::{Candidate, RunValues};
use crate::results::summary::RunSummary;

/// The candidate `label` measured by `runs`.
pub fn candidate(label: &str, runs: &[RunSummary]) -> Candidate {
    let each = |f: &dyn Fn(&RunSummary) -> f64| runs.iter().map(f).collect::<Vec<f64>>();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let lat = |s: &RunSummary, p95: bool| {
        s.latency_us
            .get("all")
            .map_or(0.0, |l| if p95 { l.p95 } else { l.p50 })
    };
    let (tput, p50, p95) = (
        each(&|s| s.throughput_ops_per_s),
        each(&|s| lat(s, false)),
        each(&|s| lat(s, true)),
    );
    // Energy per operation of every run (net of its baseline when it had one), or none.
    let energy: Option<Vec<(f64, bool)>> = runs
        .iter()
        .map(|s| {
            let e = s.energy.as_ref()?;
            match (e.net_uj_per_op, e.run) {
                (Some(net), _) => Some((net, true)),
                (None, Some(r)) if s.ops > 0 => Some((r.energy_uj as f64 / s.ops as f64, false)),
                _ => None,
            }
        })
        .collect();
    let energy_values: Option<Vec<f64>> =
        energy.as_ref().map(|v| v.iter().map(|(e, _)| *e).collect());
    let khz: Vec<u64> = runs
        .iter()
        .filter_map(|s| {
            let f = s.frequency.as_ref()?;
            let v: Vec<u64> = f
                .best_residency()
                .iter()
                .filter_map(|p| p.mean_khz)
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<u64>() / v.len() as u64)
        })
        .collect();
    Candidate {
        label: label.to_string(),
        runs: runs.iter().map(|s| s.id).collect(),
        throughput_ops_per_s: mean(&tput),
        p50_us: mean(&p50),
        p95_us: mean(&p95),
        energy_uj_per_op: energy_values.as_deref().map(mean),
        energy_basis: energy.map(|v| {
            if v.iter().all(|(_, net)| *net) {
                "net"
            } else {
                "gross"
            }
            .into()
        }),
        mean_khz: (!khz.is_empty()).then(|| khz.iter().sum::<u64>() / khz.len() as u64),
        values: RunValues {
            throughput: tput,
            p50,
            p95,
            energy: energy_values,
        },
    }
}

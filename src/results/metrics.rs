//! The per-run metrics that statistics across repeats are computed on, how each is read from
//! a run's summary, its unit, and which direction is better.

use super::dataset::{Dataset, Group, RunRecord};
use super::repeats::Estimate;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Metric {
    LatencyMean,
    P50,
    P95,
    P99,
    Throughput,
    OnCpu,
    OffCpu,
    Delay,
    Reads,
    Writes,
    Syncs,
    Energy,
}

impl Metric {
    /// The metrics of the summary table, compare and the decision grid.
    pub const MAIN: [Metric; 5] = [
        Metric::LatencyMean,
        Metric::P50,
        Metric::P95,
        Metric::P99,
        Metric::Throughput,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Metric::LatencyMean => "mean latency",
            Metric::P50 => "p50 latency",
            Metric::P95 => "p95 latency",
            Metric::P99 => "p99 latency",
            Metric::Throughput => "throughput",
            Metric::OnCpu => "on-CPU per op",
            Metric::OffCpu => "off-CPU per op",
            Metric::Delay => "delay slept per op",
            Metric::Reads => "reads per run",
            Metric::Writes => "writes per run",
            Metric::Syncs => "syncs per run",
            Metric::Energy => "energy per run",
        }
    }

    /// Short column key for CSV and JSON.
    pub fn key(self) -> &'static str {
        match self {
            Metric::LatencyMean => "mean_us",
            Metric::P50 => "p50_us",
            Metric::P95 => "p95_us",
            Metric::P99 => "p99_us",
            Metric::Throughput => "throughput_ops_per_s",
            Metric::OnCpu => "on_cpu_us_per_op",
            Metric::OffCpu => "off_cpu_us_per_op",
            Metric::Delay => "delay_us_per_op",
            Metric::Reads => "reads",
            Metric::Writes => "writes",
            Metric::Syncs => "syncs",
            Metric::Energy => "energy_j",
        }
    }

    pub fn unit(self) -> &'static str {
        match self {
            Metric::Throughput => "ops/s",
            Metric::Reads | Metric::Writes | Metric::Syncs => "count",
            Metric::Energy => "J",
            _ => "µs",
        }
    }

    pub fn higher_is_better(self) -> bool {
        self == Metric::Throughput
    }

    /// This metric of one run; `None` when the run does not have it (never a made-up zero).
    pub fn of(self, r: &RunRecord) -> Option<f64> {
        let s = &r.summary;
        let all = s.latency_us.get("all");
        let per_op = |ns: u64| (s.ops > 0).then(|| ns as f64 / s.ops as f64 / 1000.0);
        let io = s.io.get("total");
        match self {
            Metric::LatencyMean => all.map(|l| l.mean),
            Metric::P50 => all.map(|l| l.p50),
            Metric::P95 => all.map(|l| l.p95),
            Metric::P99 => all.map(|l| l.p99),
            Metric::Throughput => (s.wall_ns > 0).then_some(s.throughput_ops_per_s),
            Metric::OnCpu => per_op(s.time.on_cpu_ns),
            Metric::OffCpu => per_op(s.time.off_cpu_ns),
            Metric::Delay => per_op(s.time.delay_slept_ns),
            Metric::Reads => io.map(|i| i.reads as f64),
            Metric::Writes => io.map(|i| i.writes as f64),
            Metric::Syncs => io.map(|i| i.syncs as f64),
            Metric::Energy => energy_j(&r.raw),
        }
    }

    /// Mean, spread and confidence interval of this metric over a group's repeats.
    pub fn estimate(self, data: &Dataset, g: &Group, level: f64) -> Option<Estimate> {
        let values: Vec<f64> = data.of(g).filter_map(|r| self.of(r)).collect();
        Estimate::of(&values, level)
    }
}

/// Energy of a run in joules, when an energy source measured it: net of the idle baseline
/// (`energy.net_uj`) when there is one, as the PocketData study reported it, else the run's
/// own energy (`energy.run.energy_uj`). Absent means not measured.
pub fn energy_j(raw: &serde_json::Value) -> Option<f64> {
    let uj = |path: &str| raw.pointer(path).and_then(serde_json::Value::as_f64);
    uj("/energy/net_uj")
        .or_else(|| uj("/energy/run/energy_uj"))
        .map(|uj| uj / 1e6)
}

#[cfg(test)]
mod energy_tests {
    use super::energy_j;
    use serde_json::json;

    #[test]
    fn net_energy_wins_over_run_energy_and_absence_is_none() {
        let both = json!({"energy": {"net_uj": 1_500_000, "run": {"energy_uj": 4_000_000}}});
        assert_eq!(energy_j(&both), Some(1.5));
        let run_only = json!({"energy": {"net_uj": null, "run": {"energy_uj": 4_000_000}}});
        assert_eq!(energy_j(&run_only), Some(4.0));
        assert_eq!(energy_j(&json!({"energy": {"source": null}})), None);
    }
}

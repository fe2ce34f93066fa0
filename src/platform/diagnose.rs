//! "Is my governor working?" — the follow-up study's decision process as a judgement over
//! measured candidates: the same workload (and load) under the current governor and under the
//! alternatives the device offers. Each metric (throughput, median and p95 latency, energy per
//! operation) is rated against the best candidate — good within 5%, warning within 25%, bad
//! beyond (thresholds in [`Thresholds`]) — and the findings are said in plain words: whether the
//! current governor costs latency or energy, which alternative does better on throughput,
//! median and p95, and by how much.

use serde::{Deserialize, Serialize};

/// One governor's measurements (means over its repeats).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Candidate {
    /// `performance`, `fixed:50%`, `observed schedutil`, …
    pub label: String,
    /// Result ids it was computed from.
    pub runs: Vec<i64>,
    pub throughput_ops_per_s: f64,
    pub p50_us: f64,
    pub p95_us: f64,
    /// Energy per operation (µJ): net of the idle baseline when there was one.
    pub energy_uj_per_op: Option<f64>,
    /// `net` or `gross` (no baseline).
    pub energy_basis: Option<String>,
    /// Time-weighted mean frequency over the policies, kHz.
    pub mean_khz: Option<u64>,
}

/// Relative gaps that separate good / warning / bad.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq)]
pub struct Thresholds {
    /// At most this much worse than the best: no meaningful difference (default 5%).
    pub same: f64,
    /// Beyond this: bad (default 25%).
    pub bad: f64,
}

impl Default for Thresholds {
    fn default() -> Self {
        Thresholds {
            same: 0.05,
            bad: 0.25,
        }
    }
}

#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Rating {
    Good,
    Warning,
    Bad,
}

/// One metric compared across candidates.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Comparison {
    pub metric: String,
    /// Best candidate for this metric.
    pub best: String,
    pub best_value: f64,
    pub current_value: f64,
    /// How much worse the current governor is than the best (0 when it is the best).
    pub current_gap: f64,
    /// Rating per candidate, in candidate order.
    pub ratings: Vec<(String, Rating)>,
}

#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Verdict {
    pub current: String,
    pub comparisons: Vec<Comparison>,
    pub costs_latency: bool,
    /// `None` when energy could not be compared.
    pub costs_energy: Option<bool>,
    /// The findings in plain words.
    pub findings: Vec<String>,
}

/// Name, value, direction, unit.
type Metric = (
    &'static str,
    fn(&Candidate) -> Option<f64>,
    Better,
    &'static str,
);

#[derive(Clone, Copy)]
enum Better {
    Higher,
    Lower,
}

fn compare(
    metric: &str,
    cands: &[Candidate],
    current: usize,
    t: &Thresholds,
    value: impl Fn(&Candidate) -> Option<f64>,
    better: Better,
) -> Option<Comparison> {
    let vals: Vec<f64> = cands.iter().map(&value).collect::<Option<Vec<_>>>()?;
    let (best_i, best) = vals
        .iter()
        .copied()
        .enumerate()
        .reduce(|a, b| match better {
            Better::Higher if b.1 > a.1 => b,
            Better::Lower if b.1 < a.1 => b,
            _ => a,
        })?;
    let gap = |v: f64| match better {
        Better::Higher if v > 0.0 => (best - v) / best.max(f64::MIN_POSITIVE),
        Better::Lower if best > 0.0 => (v - best) / best,
        _ => 0.0,
    };
    let rate = |g: f64| {
        if g <= t.same {
            Rating::Good
        } else if g <= t.bad {
            Rating::Warning
        } else {
            Rating::Bad
        }
    };
    Some(Comparison {
        metric: metric.to_string(),
        best: cands[best_i].label.clone(),
        best_value: best,
        current_value: vals[current],
        current_gap: (gap(vals[current]) * 1e4).round() / 1e4,
        ratings: cands
            .iter()
            .zip(&vals)
            .map(|(c, v)| (c.label.clone(), rate(gap(*v))))
            .collect(),
    })
}

fn pct(g: f64) -> String {
    format!("{:.0}%", g * 100.0)
}

/// Judge `cands[current]` against the others.
pub fn judge(cands: &[Candidate], current: usize, t: &Thresholds) -> Verdict {
    let cur = &cands[current];
    let mut comparisons = Vec::new();
    let mut findings = Vec::new();
    let metrics: [Metric; 3] = [
        (
            "throughput",
            |c| Some(c.throughput_ops_per_s),
            Better::Higher,
            "ops/s",
        ),
        ("median latency", |c| Some(c.p50_us), Better::Lower, "µs"),
        ("p95 latency", |c| Some(c.p95_us), Better::Lower, "µs"),
    ];
    let mut costs_latency = false;
    for (name, f, better, unit) in metrics {
        let Some(c) = compare(name, cands, current, t, f, better) else {
            continue;
        };
        if c.current_gap > t.same {
            if name != "throughput" {
                costs_latency = true;
            }
            let (worse, more) = match better {
                Better::Higher => ("lower", "higher"),
                Better::Lower => ("slower", "faster"),
            };
            let rel = match better {
                Better::Higher => c.best_value / c.current_value.max(f64::MIN_POSITIVE) - 1.0,
                Better::Lower => c.current_gap,
            };
            findings.push(format!(
                "{name}: {} is {} {more} than {} ({:.1} vs {:.1} {unit}); {} is {worse} by {}.",
                c.best,
                pct(rel),
                cur.label,
                c.best_value,
                c.current_value,
                cur.label,
                pct(c.current_gap)
            ));
        } else if c.best == cur.label {
            findings.push(format!(
                "{name}: {} is the best of the governors tried ({:.1} {unit}).",
                cur.label, c.current_value
            ));
        } else {
            findings.push(format!(
                "{name}: {} is within {} of the best ({}, {:.1} vs {:.1} {unit}) — no meaningful difference.",
                cur.label,
                pct(t.same),
                c.best,
                c.current_value,
                c.best_value
            ));
        }
        comparisons.push(c);
    }
    findings.insert(
        0,
        if costs_latency {
            format!(
                "The governor is costing latency: with {} your operations are measurably slower than with the best alternative.",
                cur.label
            )
        } else {
            format!(
                "The governor is not costing latency: no alternative is more than {} faster than {} at the median or p95.",
                pct(t.same),
                cur.label
            )
        },
    );
    let energy = compare(
        "energy per operation",
        cands,
        current,
        t,
        |c| c.energy_uj_per_op,
        Better::Lower,
    );
    let costs_energy = energy.as_ref().map(|e| e.current_gap > t.same);
    match &energy {
        Some(e) if e.current_gap > t.same => findings.push(format!(
            "Energy: {} uses {} less energy per operation than {} ({:.1} vs {:.1} µJ): the governor is costing energy.",
            e.best,
            pct(1.0 - e.best_value / e.current_value.max(f64::MIN_POSITIVE)),
            cur.label,
            e.best_value,
            e.current_value
        )),
        Some(e) => findings.push(format!(
            "Energy: {} is within {} of the most frugal governor ({}): it is not costing energy.",
            cur.label,
            pct(t.same),
            e.best
        )),
        None => findings.push(
            "Energy could not be compared: no energy source measured every run (see `pocketbench doctor`)."
                .into(),
        ),
    }
    if let (Some(e), Some(lat)) = (
        &energy,
        comparisons.iter().find(|c| c.metric == "median latency"),
    ) {
        if lat.best != e.best && lat.current_gap > t.same {
            if let (Some(fast), Some(frugal)) = (
                cands.iter().find(|c| c.label == lat.best),
                cands.iter().find(|c| c.label == e.best),
            ) {
                if let (Some(fe), Some(ge)) = (fast.energy_uj_per_op, frugal.energy_uj_per_op) {
                    findings.push(format!(
                        "Trade-off: {} is fastest but uses {} more energy per operation than {}.",
                        fast.label,
                        pct(fe / ge.max(f64::MIN_POSITIVE) - 1.0),
                        frugal.label
                    ));
                }
            }
        }
    }
    comparisons.extend(energy);
    Verdict {
        current: cur.label.clone(),
        comparisons,
        costs_latency,
        costs_energy,
        findings,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cand(label: &str, tput: f64, p50: f64, p95: f64, e: Option<f64>) -> Candidate {
        Candidate {
            label: label.into(),
            throughput_ops_per_s: tput,
            p50_us: p50,
            p95_us: p95,
            energy_uj_per_op: e,
            ..Default::default()
        }
    }

    #[test]
    fn a_slow_governor_is_said_to_cost_latency_with_numbers() {
        let c = vec![
            cand("schedutil", 140.0, 200.0, 900.0, Some(50.0)),
            cand("performance", 148.0, 100.0, 300.0, Some(60.0)),
            cand("powersave", 120.0, 400.0, 1500.0, Some(40.0)),
        ];
        let v = judge(&c, 0, &Thresholds::default());
        assert!(v.costs_latency);
        assert_eq!(v.costs_energy, Some(true));
        let text = v.findings.join("\n");
        assert!(
            text.starts_with("The governor is costing latency"),
            "{text}"
        );
        assert!(
            text.contains(
                "median latency: performance is 100% faster than schedutil (100.0 vs 200.0 µs)"
            ),
            "{text}"
        );
        assert!(
            text.contains("p95 latency: performance is 200% faster"),
            "{text}"
        );
        assert!(
            text.contains("throughput: performance is 6% higher"),
            "{text}"
        );
        assert!(
            text.contains("powersave uses 20% less energy per operation"),
            "{text}"
        );
        assert!(
            text.contains("Trade-off: performance is fastest but uses 50% more energy"),
            "{text}"
        );
        let med = &v.comparisons[1];
        assert_eq!(med.ratings[0], ("schedutil".to_string(), Rating::Bad));
        assert_eq!(med.ratings[1], ("performance".to_string(), Rating::Good));
    }

    #[test]
    fn a_governor_within_the_noise_is_fine_and_missing_energy_is_said() {
        let c = vec![
            cand("schedutil", 100.0, 102.0, 300.0, None),
            cand("performance", 101.0, 100.0, 295.0, None),
        ];
        let v = judge(&c, 0, &Thresholds::default());
        assert!(!v.costs_latency);
        assert_eq!(v.costs_energy, None);
        assert!(v.findings[0].starts_with("The governor is not costing latency"));
        assert!(v
            .findings
            .iter()
            .any(|f| f.contains("no meaningful difference")));
        assert!(v
            .findings
            .iter()
            .any(|f| f.starts_with("Energy could not be compared")));
        assert_eq!(v.comparisons.len(), 3, "no energy comparison");
    }
}

//! "Is my governor working?" — the follow-up study's decision process as a judgement over
//! measured candidates: the same workload (and load) under the current governor and under the
//! alternatives the device offers. Each metric (throughput, median and p95 latency, energy per
//! operation) is rated against the best candidate — good within 5%, warning within 25%, bad
//! beyond (thresholds in [`Thresholds`]) — and the findings are said in plain words: whether the
//! current governor costs latency or energy, which alternative does better on throughput,
//! median and p95, and by how much. When governors ran more than once, a difference must also
//! exceed the run-to-run spread of the candidates compared to count; with one run each, the
//! verdict says that noise could not be estimated.

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
    /// Run-to-run spread of each metric, (max − min) / mean; `None` with a single run.
    pub spread: Spread,
}

#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Spread {
    pub throughput: Option<f64>,
    pub p50: Option<f64>,
    pub p95: Option<f64>,
    pub energy: Option<f64>,
}

impl Spread {
    /// (max − min) / mean of `values`; `None` for fewer than two.
    pub fn of(values: &[f64]) -> Option<f64> {
        if values.len() < 2 {
            return None;
        }
        let mean = values.iter().sum::<f64>() / values.len() as f64;
        let (lo, hi) = values
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
        (mean > 0.0).then(|| (hi - lo) / mean)
    }
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
    /// The gap below which current and best are not told apart: the threshold, or the
    /// run-to-run spread of either when larger.
    pub noise: f64,
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

#[derive(Clone, Copy, PartialEq)]
enum Better {
    Higher,
    Lower,
}

struct Metric {
    name: &'static str,
    unit: &'static str,
    better: Better,
    value: fn(&Candidate) -> Option<f64>,
    spread: fn(&Candidate) -> Option<f64>,
}

const LATENCY_METRICS: [Metric; 3] = [
    Metric {
        name: "throughput",
        unit: "ops/s",
        better: Better::Higher,
        value: |c| Some(c.throughput_ops_per_s),
        spread: |c| c.spread.throughput,
    },
    Metric {
        name: "median latency",
        unit: "µs",
        better: Better::Lower,
        value: |c| Some(c.p50_us),
        spread: |c| c.spread.p50,
    },
    Metric {
        name: "p95 latency",
        unit: "µs",
        better: Better::Lower,
        value: |c| Some(c.p95_us),
        spread: |c| c.spread.p95,
    },
];

const ENERGY: Metric = Metric {
    name: "energy per operation",
    unit: "µJ",
    better: Better::Lower,
    value: |c| c.energy_uj_per_op,
    spread: |c| c.spread.energy,
};

fn compare(m: &Metric, cands: &[Candidate], current: usize, t: &Thresholds) -> Option<Comparison> {
    let vals: Vec<f64> = cands.iter().map(m.value).collect::<Option<Vec<_>>>()?;
    let (best_i, best) = vals
        .iter()
        .copied()
        .enumerate()
        .reduce(|a, b| match m.better {
            Better::Higher if b.1 > a.1 => b,
            Better::Lower if b.1 < a.1 => b,
            _ => a,
        })?;
    let gap = |v: f64| match m.better {
        Better::Higher if v > 0.0 => (best - v) / best.max(f64::MIN_POSITIVE),
        Better::Lower if best > 0.0 => (v - best) / best,
        _ => 0.0,
    };
    let noise = |i: usize| {
        let s = |c: &Candidate| (m.spread)(c).unwrap_or(0.0);
        t.same.max(s(&cands[i])).max(s(&cands[best_i]))
    };
    let rate = |i: usize, g: f64| {
        if g <= noise(i) {
            Rating::Good
        } else if g <= t.bad.max(noise(i)) {
            Rating::Warning
        } else {
            Rating::Bad
        }
    };
    let round = |v: f64| (v * 1e4).round() / 1e4;
    Some(Comparison {
        metric: m.name.to_string(),
        best: cands[best_i].label.clone(),
        best_value: best,
        current_value: vals[current],
        current_gap: round(gap(vals[current])),
        noise: round(noise(current)),
        ratings: cands
            .iter()
            .zip(&vals)
            .enumerate()
            .map(|(i, (c, v))| (c.label.clone(), rate(i, gap(*v))))
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
    let mut costs_latency = false;
    for m in &LATENCY_METRICS {
        let Some(c) = compare(m, cands, current, t) else {
            continue;
        };
        let unit = m.unit;
        let name = m.name;
        if c.current_gap > c.noise {
            costs_latency |= m.better == Better::Lower;
            let (worse, more, rel) = match m.better {
                Better::Higher => (
                    "lower",
                    "higher",
                    c.best_value / c.current_value.max(f64::MIN_POSITIVE) - 1.0,
                ),
                Better::Lower => ("slower", "faster", c.current_gap),
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
                "{name}: {} is within {} of the best ({}, {:.1} vs {:.1} {unit}) — no meaningful difference{}.",
                cur.label,
                pct(c.noise),
                c.best,
                c.current_value,
                c.best_value,
                if c.noise > t.same { " given the run-to-run spread" } else { "" }
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
                "The governor is not costing latency: no alternative is meaningfully faster than {} at the median or p95.",
                cur.label
            )
        },
    );
    let energy = compare(&ENERGY, cands, current, t);
    let costs_energy = energy.as_ref().map(|e| e.current_gap > e.noise);
    match &energy {
        Some(e) if e.current_gap > e.noise => findings.push(format!(
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
            pct(e.noise),
            e.best
        )),
        None => findings.push(
            "Energy could not be compared: no energy source measured every run (see `pocketbench doctor`)."
                .into(),
        ),
    }
    let lat = comparisons.iter().find(|c| c.metric == "median latency");
    if let (Some(e), Some(lat)) = (&energy, lat) {
        let fast = cands.iter().find(|c| c.label == lat.best);
        let frugal = cands.iter().find(|c| c.label == e.best);
        if let (true, Some(f), Some(g)) = (
            lat.best != e.best && lat.current_gap > lat.noise,
            fast,
            frugal,
        ) {
            if let (Some(fe), Some(ge)) = (f.energy_uj_per_op, g.energy_uj_per_op) {
                findings.push(format!(
                    "Trade-off: {} is fastest but uses {} more energy per operation than {}.",
                    f.label,
                    pct(fe / ge.max(f64::MIN_POSITIVE) - 1.0),
                    g.label
                ));
            }
        }
    }
    if cands.iter().all(|c| c.runs.len() < 2) {
        findings.push(
            "Each governor ran once, so run-to-run noise is unknown: read differences of a few percent with care (--repeats 3 settles them)."
                .into(),
        );
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
    fn differences_inside_the_run_to_run_spread_do_not_count() {
        let mut a = cand("schedutil", 100.0, 110.0, 300.0, None);
        let mut b = cand("performance", 100.0, 100.0, 300.0, None);
        a.runs = vec![1, 3];
        b.runs = vec![2, 4];
        // 10% apart at the median, but repeats of the same governor differ by 20%.
        a.spread.p50 = Some(0.2);
        let v = judge(&[a.clone(), b.clone()], 0, &Thresholds::default());
        assert!(!v.costs_latency, "{:?}", v.findings);
        assert_eq!(v.comparisons[1].noise, 0.2);
        assert!(v
            .findings
            .iter()
            .any(|f| f.contains("given the run-to-run spread")));
        a.spread.p50 = Some(0.02);
        let v = judge(&[a, b], 0, &Thresholds::default());
        assert!(v.costs_latency);
        assert!(!v
            .findings
            .iter()
            .any(|f| f.starts_with("Each governor ran once")));
        assert_eq!(Spread::of(&[90.0, 110.0]), Some(0.2));
        assert_eq!(Spread::of(&[1.0]), None);
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

//! "Is my governor working?" — the follow-up study's decision process as a judgement over
//! measured candidates: the same workload (and load) under the current governor and under the
//! alternatives the device offers. Each metric (throughput, median and p95 latency, energy per
//! operation) is rated against the best candidate — good within 5%, warning within 25%, bad
//! beyond (thresholds in [`Thresholds`]) — and the findings are said in plain words: whether the
//! current governor costs latency or energy, which alternative does better on throughput,
//! median and p95, and by how much. When the governors compared ran more than once, a
//! difference must also be significant by Welch's t-test over their runs (the same
//! [`Comparison`] `pocketbench compare` uses, at the 90% level) to count; with one run each, the
//! verdict says that noise could not be estimated.

use crate::results::repeats::{Comparison, Estimate};
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
    /// Each run's value of each metric, for the significance test.
    pub values: RunValues,
}

/// One value per run of each metric.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunValues {
    pub throughput: Vec<f64>,
    pub p50: Vec<f64>,
    pub p95: Vec<f64>,
    /// Present when every run measured energy.
    pub energy: Option<Vec<f64>>,
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

/// One metric judged across candidates.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct MetricVerdict {
    pub metric: String,
    /// Best candidate for this metric.
    pub best: String,
    pub best_value: f64,
    pub current_value: f64,
    /// How much worse the current governor is than the best (0 when it is the best).
    pub current_gap: f64,
    /// Best (A) against current (B) over their runs: Welch's test, ratio and interval; `None`
    /// when either ran once (noise unknown: the threshold alone decides).
    pub test: Option<Comparison>,
    /// The current governor is measurably worse: its gap exceeds the threshold and, when
    /// tested, the difference is significant.
    pub worse: bool,
    /// Rating per candidate, in candidate order.
    pub ratings: Vec<(String, Rating)>,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Verdict {
    pub current: String,
    pub comparisons: Vec<MetricVerdict>,
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
    values: fn(&Candidate) -> Option<&[f64]>,
}

const LATENCY_METRICS: [Metric; 3] = [
    Metric {
        name: "throughput",
        unit: "ops/s",
        better: Better::Higher,
        value: |c| Some(c.throughput_ops_per_s),
        values: |c| Some(&c.values.throughput),
    },
    Metric {
        name: "median latency",
        unit: "µs",
        better: Better::Lower,
        value: |c| Some(c.p50_us),
        values: |c| Some(&c.values.p50),
    },
    Metric {
        name: "p95 latency",
        unit: "µs",
        better: Better::Lower,
        value: |c| Some(c.p95_us),
        values: |c| Some(&c.values.p95),
    },
];

const ENERGY: Metric = Metric {
    name: "energy per operation",
    unit: "µJ",
    better: Better::Lower,
    value: |c| c.energy_uj_per_op,
    values: |c| c.values.energy.as_deref(),
};

/// Significance level of the test between the best and the current governor.
pub const LEVEL: f64 = 0.90;

fn compare(
    m: &Metric,
    cands: &[Candidate],
    current: usize,
    t: &Thresholds,
) -> Option<MetricVerdict> {
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
    // Best (A) against each candidate (B) over their runs, when both have at least two.
    let tests: Vec<Option<Comparison>> = (0..cands.len())
        .map(|i| {
            let a = (m.values)(&cands[best_i]).filter(|v| v.len() >= 2 && i != best_i)?;
            let b = (m.values)(&cands[i]).filter(|v| v.len() >= 2)?;
            let (a, b) = (Estimate::of(a, LEVEL)?, Estimate::of(b, LEVEL)?);
            Some(Comparison::of(a, b))
        })
        .collect();
    // Worse than the best: beyond the threshold, and significant when it can be tested.
    let worse = |i: usize, g: f64| {
        i != best_i && g > t.same && tests[i].is_none_or(|c| c.significant != Some(false))
    };
    let rate = |i: usize, g: f64| {
        if !worse(i, g) {
            Rating::Good
        } else if g <= t.bad {
            Rating::Warning
        } else {
            Rating::Bad
        }
    };
    let round = |v: f64| (v * 1e4).round() / 1e4;
    let current_gap = gap(vals[current]);
    Some(MetricVerdict {
        metric: m.name.to_string(),
        best: cands[best_i].label.clone(),
        best_value: best,
        current_value: vals[current],
        current_gap: round(current_gap),
        test: tests[current],
        worse: worse(current, current_gap),
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
        if c.worse {
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
            let why = match &c.test {
                Some(test) if c.current_gap > t.same => format!(
                    " — not significant over the runs (p = {:.2})",
                    test.p.unwrap_or(1.0)
                ),
                _ => format!(" — within the {} threshold", pct(t.same)),
            };
            findings.push(format!(
                "{name}: {} is {} from the best ({}, {:.1} vs {:.1} {unit}): no meaningful difference{why}.",
                cur.label,
                pct(c.current_gap),
                c.best,
                c.current_value,
                c.best_value,
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
    let costs_energy = energy.as_ref().map(|e| e.worse);
    match &energy {
        Some(e) if e.worse => findings.push(format!(
            "Energy: {} uses {} less energy per operation than {} ({:.1} vs {:.1} µJ): the governor is costing energy.",
            e.best,
            pct(1.0 - e.best_value / e.current_value.max(f64::MIN_POSITIVE)),
            cur.label,
            e.best_value,
            e.current_value
        )),
        Some(e) => findings.push(format!(
            "Energy: {} is {} from the most frugal governor ({}), no meaningful difference: it is not costing energy.",
            cur.label,
            pct(e.current_gap),
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
        if let (true, Some(f), Some(g)) = (lat.best != e.best && lat.worse, fast, frugal) {
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
    fn differences_the_runs_cannot_tell_from_noise_do_not_count() {
        let mut a = cand("schedutil", 100.0, 110.0, 300.0, None);
        let mut b = cand("performance", 100.0, 100.0, 300.0, None);
        a.runs = vec![1, 3, 5];
        b.runs = vec![2, 4, 6];
        for c in [&mut a, &mut b] {
            c.values.throughput = vec![100.0; 3];
            c.values.p95 = vec![300.0; 3];
        }
        // 10% apart at the median, but schedutil's runs were 88, 110 and 132 µs (sd 22)
        // against 99, 100, 101 (sd 1): Welch's se = √(22²/3 + 1²/3) = 12.71, t = 0.787 on
        // about 2 degrees of freedom, p ≈ 0.51: not significant at 90%.
        a.values.p50 = vec![88.0, 110.0, 132.0];
        b.values.p50 = vec![99.0, 100.0, 101.0];
        let v = judge(&[a.clone(), b.clone()], 0, &Thresholds::default());
        assert!(!v.costs_latency, "{:?}", v.findings);
        let med = &v.comparisons[1];
        assert!(!med.worse);
        let test = med.test.expect("both ran three times");
        assert_eq!(test.significant, Some(false));
        assert!((test.t.unwrap().abs() - 0.787).abs() < 0.001, "{test:?}");
        assert!(
            v.findings
                .iter()
                .any(|f| f.contains("not significant over the runs")),
            "{:?}",
            v.findings
        );
        // The same means with steady runs (109, 110, 111: se = 0.816, t = 12.2 on 4 degrees of
        // freedom, p < 0.001): schedutil is measurably slower.
        a.values.p50 = vec![109.0, 110.0, 111.0];
        let v = judge(&[a, b], 0, &Thresholds::default());
        assert!(v.costs_latency);
        assert_eq!(v.comparisons[1].test.unwrap().significant, Some(true));
        assert!(!v
            .findings
            .iter()
            .any(|f| f.starts_with("Each governor ran once")));
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

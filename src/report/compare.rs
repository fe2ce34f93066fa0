//! Comparing two sets of runs (two cells, two configurations or two result stores), metric by
//! metric: each side's mean with its confidence interval, the ratio B/A with its uncertainty,
//! the difference with its Welch interval, the p-value and whether the difference is
//! significant — a relative-speed table in the manner of hyperfine.

use crate::output::units::sig;
use crate::results::dataset::Dataset;
use crate::results::metrics::Metric;
use crate::results::repeats::{Comparison, Estimate};
use serde::Serialize;
use std::fmt::Write as _;

/// One side of a comparison.
pub struct Side {
    /// What the user typed (a filter or a store path).
    pub spec: String,
    pub data: Dataset,
}

#[derive(Serialize)]
pub struct MetricComparison {
    pub metric: &'static str,
    pub unit: &'static str,
    pub higher_is_better: bool,
    pub comparison: Option<Comparison>,
    pub verdict: String,
}

/// Compare every main metric of B against A.
pub fn compare(a: &Side, b: &Side, level: f64) -> Vec<MetricComparison> {
    Metric::MAIN
        .iter()
        .map(|&m| {
            let ea = side_estimate(a, m, level);
            let eb = side_estimate(b, m, level);
            let comparison = match (ea, eb) {
                (Some(x), Some(y)) => Some(Comparison::of(x, y)),
                _ => None,
            };
            let verdict = comparison.as_ref().map_or_else(
                || "not measured on both sides".to_string(),
                |c| describe(c, m),
            );
            MetricComparison {
                metric: m.key(),
                unit: m.unit(),
                higher_is_better: m.higher_is_better(),
                comparison,
                verdict,
            }
        })
        .collect()
}

fn side_estimate(side: &Side, m: Metric, level: f64) -> Option<Estimate> {
    let values: Vec<f64> = side.data.runs.iter().filter_map(|r| m.of(r)).collect();
    Estimate::of(&values, level)
}

/// "B is 1.52 ± 0.10 times slower (significant, p = 0.004)"
fn describe(c: &Comparison, m: Metric) -> String {
    let better = if m.higher_is_better() {
        c.ratio > 1.0
    } else {
        c.ratio < 1.0
    };
    let factor = if c.ratio >= 1.0 {
        c.ratio
    } else {
        1.0 / c.ratio
    };
    let sd = c.ratio_sd.map(|sd| {
        if c.ratio >= 1.0 {
            sd
        } else {
            sd / (c.ratio * c.ratio)
        }
    });
    // A factor within 10% of 1 reads as a percentage ("0.3% ± 0.2% lower"), not "1 ± 0.003×".
    let size = if factor < 1.1 {
        let pct = |v: f64| format!("{}%", sig(v * 100.0));
        match sd {
            Some(sd) => format!("{} ± {}", pct(factor - 1.0), pct(sd)),
            None => pct(factor - 1.0),
        }
    } else {
        match sd {
            Some(sd) => format!("{} ± {}×", sig(factor), sig(sd)),
            None => format!("{}×", sig(factor)),
        }
    };
    let (word, dir) = match (m.higher_is_better(), better) {
        (true, true) => ("higher", "better"),
        (true, false) => ("lower", "worse"),
        (false, true) => ("lower", "better"),
        (false, false) => ("higher", "worse"),
    };
    let test = match (c.significant, c.p) {
        (Some(true), Some(p)) => format!("significant, p {}", p_text(p)),
        (Some(false), Some(p)) => format!("not significant, p {}", p_text(p)),
        _ => "significance unknown: fewer than 2 runs on a side".into(),
    };
    if c.ratio == 1.0 {
        return format!("B equals A ({test})");
    }
    format!("B is {size} {word} ({dir}) ({test})")
}

fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("= {p:.3}")
    }
}

/// The terminal table.
pub fn text(a: &Side, b: &Side, rows: &[MetricComparison], level: f64) -> String {
    let mut o = String::new();
    for (name, s) in [("A", a), ("B", b)] {
        let ids: Vec<String> = s.data.runs.iter().map(|r| r.id.to_string()).collect();
        let configs: Vec<&str> = s.data.groups.iter().map(|g| g.name.as_str()).collect();
        let _ = writeln!(
            o,
            "{name}: {} — {} runs ({}){}",
            s.spec,
            ids.len(),
            ids.join(" "),
            if configs.len() > 1 {
                format!(
                    "; note: {} configurations taken as one set: {}",
                    configs.len(),
                    configs.join("; ")
                )
            } else {
                String::new()
            }
        );
    }
    let pct = format!("{:.0}%", level * 100.0);
    let _ = writeln!(
        o,
        "\n{:<22} {:>24} {:>24} {:>14} {:>26}  verdict",
        "metric",
        format!("A mean ± {pct} CI"),
        format!("B mean ± {pct} CI"),
        "B/A",
        format!("B − A ± {pct} CI")
    );
    for r in rows {
        let label = format!("{} ({})", r.metric, r.unit);
        match &r.comparison {
            None => {
                let _ = writeln!(o, "{label:<22} {:>24} {:>24}  {}", "-", "-", r.verdict);
            }
            Some(c) => {
                let ratio = match c.ratio_sd {
                    Some(sd) => format!("{} ± {}", sig(c.ratio), sig(sd)),
                    None => sig(c.ratio),
                };
                let diff = match c.diff_ci_half {
                    Some(h) => format!("{} ± {}", sig(c.diff), sig(h)),
                    None => sig(c.diff),
                };
                let _ = writeln!(
                    o,
                    "{label:<22} {:>24} {:>24} {ratio:>14} {diff:>26}  {}",
                    c.a.sig_text(),
                    c.b.sig_text(),
                    r.verdict
                );
            }
        }
    }
    let _ = writeln!(
        o,
        "\nWelch's t-test on per-run values (each run is one repeat); significant means p < {:.2}.",
        1.0 - level
    );
    o
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::repeats::Estimate;

    fn compare(a: &[f64], b: &[f64]) -> String {
        let e = |v: &[f64]| Estimate::of(v, 0.9).unwrap();
        describe(&Comparison::of(e(a), e(b)), Metric::P50)
    }

    #[test]
    fn small_differences_read_as_percentages_and_large_ones_as_factors() {
        // Means 100 and 99.7: A is 1/0.997 = 1.00301 times B, so B is 0.301% lower; 100 and
        // 200: twice as high.
        let small = compare(&[99.0, 101.0], &[99.7, 99.7]);
        assert!(small.starts_with("B is 0.301% ± "), "{small}");
        assert!(small.contains("% lower (better)"), "{small}");
        let large = compare(&[100.0, 100.0], &[200.0, 200.0]);
        assert!(large.starts_with("B is 2"), "{large}");
        assert!(large.contains("× higher (worse)"), "{large}");
    }
}

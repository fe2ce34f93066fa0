//! The decision grid's layout and colours, the way MDPerf's decision process reads them: one
//! row per combination of the row axes (governor × system load in the built-in `mdperf`
//! plan), one column per value of the column axis (the workload), and each cell coloured
//! against the best cell *of its column*, so a developer compares configurations for their
//! own workload. Harness baselines (the null engine) are not a choice and are left out. A
//! cell that would pool runs differing in a setting that is neither a row nor the column
//! axis is refused with a message naming that setting, instead of averaging it away.

use serde::{Deserialize, Serialize};

/// Which axes form the rows and which the columns (a plan's `[grid]`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GridSpec {
    pub rows: Vec<String>,
    pub columns: String,
}

impl Default for GridSpec {
    /// Workloads as columns; the rows are every other setting that varies.
    fn default() -> Self {
        GridSpec {
            rows: Vec::new(),
            columns: "workload".into(),
        }
    }
}

/// Within this factor of the column's best: good.
pub const GOOD: f64 = 1.10;
/// Within this factor: warning; beyond it: bad.
pub const WARNING: f64 = 1.25;

/// Where each configuration goes.
#[derive(Debug, PartialEq)]
pub struct Layout {
    pub rows: Vec<String>,
    pub cols: Vec<String>,
    /// (row, column, index of the configuration).
    pub cells: Vec<(usize, usize, usize)>,
    /// Configurations left out as harness baselines.
    pub baselines: Vec<usize>,
}

/// Whether a configuration is a harness baseline rather than a choice.
fn is_baseline(labels: &[(String, String)]) -> bool {
    labels.iter().any(|(k, v)| k == "engine" && v == "null")
}

fn value<'a>(labels: &'a [(String, String)], key: &str) -> &'a str {
    labels
        .iter()
        .find(|(k, _)| k == key)
        .map_or("-", |(_, v)| v.as_str())
}

/// Lay out configurations (each given by all of its labels) as `spec` asks. An empty
/// `spec.rows` means every label that varies among the non-baseline configurations, except
/// the column axis.
pub fn layout(configs: &[Vec<(String, String)>], spec: &GridSpec) -> Result<Layout, String> {
    let baselines: Vec<usize> = (0..configs.len())
        .filter(|&i| is_baseline(&configs[i]))
        .collect();
    let chosen: Vec<usize> = (0..configs.len())
        .filter(|i| !baselines.contains(i))
        .collect();
    let mut keys: Vec<&str> = Vec::new();
    for &i in &chosen {
        for (k, _) in &configs[i] {
            if !keys.contains(&k.as_str()) {
                keys.push(k);
            }
        }
    }
    let varies = |k: &str| {
        let mut vals = chosen.iter().map(|&i| value(&configs[i], k));
        let first = vals.next();
        vals.any(|v| Some(v) != first)
    };
    let rows_axes: Vec<String> = if spec.rows.is_empty() {
        keys.iter()
            .filter(|k| **k != spec.columns && varies(k))
            .map(|k| k.to_string())
            .collect()
    } else {
        spec.rows.clone()
    };
    let mut layout = Layout {
        rows: Vec::new(),
        cols: Vec::new(),
        cells: Vec::new(),
        baselines,
    };
    for &i in &chosen {
        let row: Vec<&str> = rows_axes.iter().map(|k| value(&configs[i], k)).collect();
        let row = if row.is_empty() {
            "all".to_string()
        } else {
            row.join(" · ")
        };
        let col = value(&configs[i], &spec.columns).to_string();
        let (r, c) = (
            index_of(&mut layout.rows, row),
            index_of(&mut layout.cols, col),
        );
        if let Some(&(_, _, other)) = layout.cells.iter().find(|x| x.0 == r && x.1 == c) {
            return Err(mixed(
                &configs[other],
                &configs[i],
                &layout,
                r,
                c,
                &rows_axes,
                spec,
            ));
        }
        layout.cells.push((r, c, i));
    }
    Ok(layout)
}

/// The refusal when two configurations land in one cell.
fn mixed(
    a: &[(String, String)],
    b: &[(String, String)],
    l: &Layout,
    r: usize,
    c: usize,
    rows_axes: &[String],
    spec: &GridSpec,
) -> String {
    let differ: Vec<String> = a
        .iter()
        .filter(|(k, v)| value(b, k) != v.as_str())
        .map(|(k, v)| format!("{k} ({v} and {})", value(b, k)))
        .collect();
    format!(
        "decision grid not drawn: the cell of row {} and {} {} would pool runs that differ in {}, which is neither a row ({}) nor the column axis; add it to the plan's [grid] rows, or select one value with --filter",
        l.rows[r],
        spec.columns,
        l.cols[c],
        differ.join(", "),
        if rows_axes.is_empty() { "none".to_string() } else { rows_axes.join(", ") }
    )
}

fn index_of(list: &mut Vec<String>, v: String) -> usize {
    match list.iter().position(|x| *x == v) {
        Some(i) => i,
        None => {
            list.push(v);
            list.len() - 1
        }
    }
}

/// How far `v` is from `best` (≥ 1), whichever direction is better.
pub fn factor(v: f64, best: f64, higher_is_better: bool) -> f64 {
    let f = if higher_is_better { best / v } else { v / best };
    if f.is_finite() {
        f.max(1.0)
    } else if v == best {
        1.0
    } else {
        f64::INFINITY
    }
}

/// good / warning / bad for a factor.
pub fn verdict(f: f64) -> &'static str {
    if f <= GOOD {
        "good"
    } else if f <= WARNING {
        "warning"
    } else {
        "bad"
    }
}

/// The factor from its column's best of each (row, column, value), in the same order.
pub fn factors(values: &[(usize, usize, f64)], higher_is_better: bool) -> Vec<f64> {
    values
        .iter()
        .map(|&(_, c, v)| {
            let column = values.iter().filter(|x| x.1 == c).map(|x| x.2);
            let best = if higher_is_better {
                column.fold(f64::NEG_INFINITY, f64::max)
            } else {
                column.fold(f64::INFINITY, f64::min)
            };
            factor(v, best, higher_is_better)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn thresholds() {
        assert_eq!(verdict(factor(105.0, 100.0, false)), "good");
        assert_eq!(verdict(factor(120.0, 100.0, false)), "warning");
        assert_eq!(verdict(factor(130.0, 100.0, false)), "bad");
        // Throughput: 80 ops/s against a best of 100 is 1.25× worse.
        assert_eq!(verdict(factor(80.0, 100.0, true)), "warning");
        assert_eq!(verdict(factor(0.0, 0.0, false)), "good");
    }

    /// MDPerf's layout on a small matrix: 2 governors × 2 loads × 2 workloads, plus a null
    /// engine run. Throughput (ops/s) worked by hand, each against the best of its column:
    ///   workload a: perf·alone 100 (best) good; perf·loaded 95 → 100/95 = 1.05 good;
    ///               save·alone 85 → 1.18 warning; save·loaded 70 → 1.43 bad
    ///   workload b: perf·alone 40 → 50/40 = 1.25 warning; perf·loaded 50 (best) good;
    ///               save·alone 49 → 1.02 good; save·loaded 20 → 2.5 bad
    /// The null engine's 5 000 ops/s would make every cell red; it is left out.
    #[test]
    fn mdperf_layout_coloured_by_column_with_the_baseline_left_out() {
        let mut configs = Vec::new();
        let mut tput = Vec::new();
        for (w, g, l, v) in [
            ("a", "performance", "alone", 100.0),
            ("a", "performance", "loaded", 95.0),
            ("a", "powersave", "alone", 85.0),
            ("a", "powersave", "loaded", 70.0),
            ("b", "performance", "alone", 40.0),
            ("b", "performance", "loaded", 50.0),
            ("b", "powersave", "alone", 49.0),
            ("b", "powersave", "loaded", 20.0),
        ] {
            configs.push(config(&[
                ("workload", w),
                ("governor", g),
                ("load", l),
                ("engine", "sqlite"),
            ]));
            tput.push(v);
        }
        configs.push(config(&[
            ("workload", "a"),
            ("governor", "performance"),
            ("load", "alone"),
            ("engine", "null"),
        ]));
        tput.push(5000.0);
        let spec = GridSpec {
            rows: vec!["governor".into(), "load".into()],
            columns: "workload".into(),
        };
        let l = layout(&configs, &spec).unwrap();
        assert_eq!(l.cols, ["a", "b"]);
        assert_eq!(
            l.rows,
            [
                "performance · alone",
                "performance · loaded",
                "powersave · alone",
                "powersave · loaded"
            ]
        );
        assert_eq!(l.baselines, [8]);
        let values: Vec<(usize, usize, f64)> =
            l.cells.iter().map(|&(r, c, i)| (r, c, tput[i])).collect();
        let verdicts: Vec<&str> = factors(&values, true).into_iter().map(verdict).collect();
        assert_eq!(
            verdicts,
            ["good", "good", "warning", "bad", "warning", "good", "good", "bad"]
        );
    }

    #[test]
    fn cells_that_would_mix_another_setting_are_refused() {
        let configs = vec![
            config(&[
                ("workload", "a"),
                ("governor", "performance"),
                ("delay", "zero"),
            ]),
            config(&[
                ("workload", "a"),
                ("governor", "performance"),
                ("delay", "lognormal:6.67ms"),
            ]),
        ];
        let spec = GridSpec {
            rows: vec!["governor".into()],
            columns: "workload".into(),
        };
        let e = layout(&configs, &spec).unwrap_err();
        assert!(
            e.contains("differ in delay (zero and lognormal:6.67ms)"),
            "{e}"
        );
        assert!(
            e.contains("neither a row (governor) nor the column axis"),
            "{e}"
        );
        // With no rows declared, every varying setting is a row, so nothing mixes.
        let l = layout(&configs, &GridSpec::default()).unwrap();
        assert_eq!(l.rows, ["zero", "lognormal:6.67ms"]);
    }
}

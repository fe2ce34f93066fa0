//! CSV (RFC 4180, written by the `csv` crate): one row per configuration with each main
//! metric's mean, standard deviation, confidence interval and CV, and the pooled percentiles.

use super::table::{est, rows};
use super::{Exporter, Input, Part};
use crate::error::{Error, Result};
use crate::results::metrics::Metric;

pub struct Csv;

impl Exporter for Csv {
    fn extension(&self) -> &'static str {
        "csv"
    }

    fn export(&self, input: &Input<'_>) -> Result<Vec<Part>> {
        let fail = |e: csv::Error| Error::failed(format!("CSV export: {e}"));
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut head = vec!["configuration".to_string(), "runs".into(), "n".into()];
        for m in Metric::MAIN {
            for part in ["mean", "sd", "ci_low", "ci_high", "cv"] {
                head.push(format!("{}_{part}", m.key()));
            }
        }
        for p in ["p50", "p95", "p99", "max"] {
            head.push(format!("pooled_{p}_us"));
        }
        w.write_record(&head).map_err(fail)?;
        let num = |v: Option<f64>| v.map_or(String::new(), |x| x.to_string());
        for r in &rows(input.data, input.level) {
            let ids: Vec<String> = r.runs.iter().map(i64::to_string).collect();
            let mut line = vec![
                r.configuration.clone(),
                ids.join(" "),
                r.runs.len().to_string(),
            ];
            for m in Metric::MAIN {
                let e = est(r, m.key());
                line.push(num(e.map(|e| e.mean)));
                line.push(num(e.and_then(|e| e.sd)));
                line.push(num(e.and_then(|e| e.ci()).map(|c| c.0)));
                line.push(num(e.and_then(|e| e.ci()).map(|c| c.1)));
                line.push(num(e.and_then(|e| e.cv)));
            }
            let p = &r.pooled_us;
            line.extend([p.p50, p.p95, p.p99, p.max].map(|v| v.to_string()));
            w.write_record(&line).map_err(fail)?;
        }
        let bytes = w
            .into_inner()
            .map_err(|e| Error::failed(format!("CSV export: {e}")))?;
        Ok(vec![Part {
            stem: String::new(),
            bytes,
        }])
    }
}

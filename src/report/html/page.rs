//! The HTML page: header, summary table (mean ± CI over repeats, CV, pooled percentiles), the
//! figures with how to read each, and the environment table (device, kernel, CPU, governor,
//! energy source, engine version and options) covering every run shown.

use super::svg::esc;
use super::Figure;
use crate::export::table;
use crate::output::units::sig;
use crate::results::dataset::{Dataset, RunRecord};
use std::fmt::Write as _;

const STYLE: &str = "body{font-family:'DejaVu Sans',Arial,Helvetica,sans-serif;margin:24px auto;max-width:1000px;color:#222;line-height:1.4}
h1{font-size:22px;margin-bottom:4px}h2{font-size:17px;margin:28px 0 6px;border-bottom:1px solid #ddd;padding-bottom:4px}
.meta{color:#555;font-size:13px}.how{font-size:13px;color:#333}.note{font-size:13px;background:#fff4d6;border-left:4px solid #f0b429;padding:6px 10px}
table{border-collapse:collapse;font-size:12px;margin:8px 0}th,td{border:1px solid #ddd;padding:3px 6px;text-align:right;vertical-align:top}
th{background:#f3f3f3}td:first-child,th:first-child{text-align:left}td.l{text-align:left}
svg.chart{display:block;max-width:100%;height:auto;border:1px solid #eee;margin:6px 0}";

pub struct PageInfo<'a> {
    pub store: &'a str,
    pub filter: Option<&'a str>,
    pub generated_at: &'a str,
    pub level: f64,
}

pub fn render(data: &Dataset, figures: &[Figure], info: &PageInfo<'_>) -> String {
    let mut o = String::with_capacity(1 << 20);
    let _ = write!(
        o,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>pocketbench report</title><style>{STYLE}</style></head><body>\n<h1>pocketbench report</h1>\n<p class=\"meta\">{} runs in {} configurations from <code>{}</code>{}; generated {} by {}. Intervals are {:.0}% Student-t confidence intervals over repeats.</p>\n",
        data.runs.len(),
        data.groups.len(),
        esc(info.store),
        info.filter
            .map(|f| format!(", filter <code>{}</code>", esc(f)))
            .unwrap_or_default(),
        esc(info.generated_at),
        esc(crate::TOOL_VERSION),
        info.level * 100.0
    );
    let _ = writeln!(
        o,
        "<nav><b>Figures:</b> {}</nav>",
        figures
            .iter()
            .map(|f| format!("<a href=\"#fig-{}\">{}</a>", f.id, esc(&f.title)))
            .collect::<Vec<_>>()
            .join(" · ")
    );
    if !data.runs.is_empty() {
        summary(&mut o, data, info.level);
    }
    for f in figures {
        let _ = writeln!(
            o,
            "<section id=\"fig-{}\"><h2>{}</h2>\n<p class=\"how\"><b>How to read:</b> {}</p>",
            f.id,
            esc(&f.title),
            esc(&f.how_to_read)
        );
        if let Some(n) = &f.note {
            let _ = writeln!(o, "<p class=\"note\">{}</p>", esc(n));
        }
        o.push_str(&f.svg);
        o.push_str("\n</section>\n");
    }
    if !data.runs.is_empty() {
        environment(&mut o, data);
    }
    o.push_str("</body></html>\n");
    o
}

fn summary(o: &mut String, data: &Dataset, level: f64) {
    let _ = writeln!(o, "<h2 id=\"summary\">Summary</h2>\n<table><tr><th>configuration</th><th>runs</th><th>n</th><th>mean µs</th><th>p50 µs</th><th>p95 µs</th><th>p99 µs</th><th>ops/s</th><th>CV p50</th><th>pooled p50 / p95 / p99 µs</th></tr>");
    for r in table::rows(data, level) {
        let ids: Vec<String> = r.runs.iter().map(i64::to_string).collect();
        let _ = write!(
            o,
            "<tr><td>{}</td><td class=\"l\">{}</td><td>{}</td>",
            esc(&r.configuration),
            compact(&ids),
            r.runs.len()
        );
        let mut cv = "-".to_string();
        for (key, e) in &r.metrics {
            let text = e.map_or("-".into(), |e| e.sig_text());
            if *key == "p50_us" {
                cv = e
                    .and_then(|e| e.cv)
                    .map_or("-".into(), |c| format!("{:.1}%", c * 100.0));
            }
            let _ = write!(o, "<td>{}</td>", esc(&text));
        }
        let p = &r.pooled_us;
        let _ = writeln!(
            o,
            "<td>{cv}</td><td>{} / {} / {}</td></tr>",
            sig(p.p50),
            sig(p.p95),
            sig(p.p99)
        );
    }
    o.push_str("</table>\n");
}

/// `1-3 7` for ids 1, 2, 3, 7.
fn compact(ids: &[String]) -> String {
    let nums: Vec<i64> = ids.iter().filter_map(|s| s.parse().ok()).collect();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < nums.len() {
        let mut j = i;
        while j + 1 < nums.len() && nums[j + 1] == nums[j] + 1 {
            j += 1;
        }
        parts.push(if j > i {
            format!("{}-{}", nums[i], nums[j])
        } else {
            nums[i].to_string()
        });
        i = j + 1;
    }
    parts.join(" ")
}

/// The columns of the environment table, read from one run.
fn env_row(r: &RunRecord) -> Vec<String> {
    let e = &r.summary.environment;
    let s = |k: &str| {
        e.get(k)
            .map(|v| match v {
                serde_json::Value::String(s) => s.clone(),
                serde_json::Value::Object(m) => match (m.get("value"), m.get("unavailable")) {
                    (Some(v), _) => format!("observed {}", v.as_str().unwrap_or("?")),
                    (_, Some(u)) => format!("unavailable: {}", u.as_str().unwrap_or("?")),
                    _ => v.to_string(),
                },
                other => other.to_string(),
            })
            .unwrap_or_else(|| "-".into())
    };
    let eng = &r.summary.engine;
    let options: Vec<String> = eng
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    vec![
        s("host"),
        format!("{} {}", s("os"), s("kernel")),
        format!("{} ({} CPUs, {})", s("cpu_model"), s("cpus"), s("arch")),
        s("governor"),
        s("energy"),
        format!("{} {}", eng.name, eng.version),
        if options.is_empty() {
            "defaults".into()
        } else {
            options.join(" ")
        },
        r.summary.tool_version.clone(),
    ]
}

fn environment(o: &mut String, data: &Dataset) {
    let mut rows: Vec<(Vec<String>, Vec<String>)> = Vec::new();
    for r in &data.runs {
        let row = env_row(r);
        match rows.iter_mut().find(|(x, _)| *x == row) {
            Some((_, ids)) => ids.push(r.id.to_string()),
            None => rows.push((row, vec![r.id.to_string()])),
        }
    }
    let _ = writeln!(o, "<h2 id=\"environment\">Environment</h2>\n<p class=\"how\">Every run shown, grouped by identical environment: device, kernel, CPU, the governor as observed (not set) and whether an energy source existed, engine version and every effective engine option.</p>\n<table><tr><th>runs</th><th>host</th><th>kernel</th><th>CPU</th><th>governor</th><th>energy</th><th>engine</th><th>engine options</th><th>tool</th></tr>");
    for (row, ids) in rows {
        let _ = write!(o, "<tr><td class=\"l\">{}</td>", compact(&ids));
        for v in row {
            let _ = write!(o, "<td class=\"l\">{}</td>", esc(&v));
        }
        o.push_str("</tr>\n");
    }
    o.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    #[test]
    fn run_id_ranges() {
        let ids: Vec<String> = ["1", "2", "3", "7", "9", "10"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(super::compact(&ids), "1-3 7 9-10");
    }
}

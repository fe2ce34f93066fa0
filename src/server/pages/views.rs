//! The dashboard's pages, each a function from the database to HTML.

use super::super::explain::{self, CategoryView};
use super::super::{categories, db_error, rankings, results, State};
use super::{charts, date, enc, layout};
use crate::report::html::svg::{esc, num};
use crate::server::http::Reply;
use std::fmt::Write as _;

type Page = Result<Reply, Reply>;

fn ok(title: &str, body: &str) -> Page {
    Ok(Reply::html(200, layout(title, body)))
}

fn missing(message: &str) -> Reply {
    Reply::html(
        404,
        layout("Not found", &format!("<p>{}</p>", esc(message))),
    )
}

fn category(id: &str) -> Result<&'static categories::Category, Reply> {
    categories::find(id).ok_or_else(|| missing(&format!("There is no category {id}.")))
}

fn device_link(model: &str) -> String {
    format!(r#"<a href="/devices/{}">{}</a>"#, enc(model), esc(model))
}

pub fn index(state: &State) -> Page {
    let mut body = String::from(
        "<p>Results submitted by devices, ranked per category. A model is ranked once the 3σ rule \
         leaves it enough results.</p>\n<table id=\"categories\"><tr><th>category</th><th>unit</th>\
         <th class=\"num\">models ranked</th><th>leader</th><th class=\"num\">mean</th></tr>\n",
    );
    let mut empty = Vec::new();
    for c in categories::all() {
        // Models with any result in the category (kept ≥ 0), and those ranked.
        let models = rankings::count(&state.db, c, 0).map_err(db_error)?;
        if models == 0 {
            empty.push(c);
            continue;
        }
        let top = rankings::top(&state.db, c, state.config.min_results, 1).map_err(db_error)?;
        let ranked = rankings::count(&state.db, c, state.config.min_results).map_err(db_error)?;
        let (leader, mean) = top.first().map_or((String::from("—"), String::new()), |r| {
            (device_link(&r.model), num(r.mean))
        });
        let _ = writeln!(
            body,
            r#"<tr class="category" data-category="{id}"><td><a href="/rankings/{eid}">{t}</a></td><td>{u}</td><td class="num">{n}</td><td>{leader}</td><td class="num">{mean}</td></tr>"#,
            id = esc(&c.id),
            eid = enc(&c.id),
            t = esc(&c.title),
            u = esc(c.unit),
            n = ranked
        );
    }
    body.push_str("</table>\n");
    if !empty.is_empty() {
        let _ = write!(
            body,
            "<details id=\"empty-categories\"><summary>{} categories without results</summary><ul>",
            empty.len()
        );
        for c in empty {
            let _ = write!(
                body,
                r#"<li class="empty-category" data-category="{}"><a href="/rankings/{}">{}</a></li>"#,
                esc(&c.id),
                enc(&c.id),
                esc(&c.title)
            );
        }
        body.push_str("</ul></details>\n");
    }
    let recent = results::list(&state.db, None, None, 10, 0).map_err(db_error)?;
    body.push_str("<h2>Latest results</h2>\n<table id=\"latest\"><tr><th>result</th><th>kind</th><th>model</th><th>submitted</th></tr>\n");
    for r in recent {
        let _ = writeln!(
            body,
            r#"<tr><td><a href="/results/{id}">#{id}</a></td><td>{k}</td><td>{m}</td><td>{d}</td></tr>"#,
            id = r.id,
            k = esc(&r.kind),
            m = device_link(&r.model),
            d = date(r.submitted_at)
        );
    }
    body.push_str("</table>\n");
    ok("Rankings", &body)
}

/// A ranking table's rows: rank, model, mean, standard deviation, results kept of all.
pub(super) fn ranked_rows(top: &[rankings::Ranked]) -> String {
    let mut rows = String::new();
    for (i, r) in top.iter().enumerate() {
        let _ = writeln!(
            rows,
            r#"<tr class="ranked" data-model="{m}"><td class="num">{rank}</td><td>{link}</td><td class="num">{mean}</td><td class="num">{sd}</td><td class="num">{k} / {t}</td></tr>"#,
            m = esc(&r.model),
            rank = i + 1,
            link = device_link(&r.model),
            mean = num(r.mean),
            sd = num(r.stddev),
            k = r.kept,
            t = r.total
        );
    }
    rows
}

/// A ranking's bar chart (each model's mean and standard deviation); nothing for no model.
pub(super) fn ranking_chart(id: &str, title: &str, unit: &str, top: &[rankings::Ranked]) -> String {
    if top.is_empty() {
        return String::new();
    }
    let rows: Vec<_> = top
        .iter()
        .map(|r| (r.model.clone(), r.mean, r.stddev))
        .collect();
    charts::bars(id, title, unit, &rows)
}

/// The filter form of a ranking page, with the values in use selected.
fn filter_form(c: &categories::Category, values: &[String; 4], choices: &[Vec<String>]) -> String {
    let mut f = format!(
        r#"<form id="filters" method="get" action="/rankings/{}">"#,
        enc(&c.id)
    );
    for (i, (key, label, _)) in crate::server::filtered::FILTERS.iter().enumerate() {
        let _ = write!(
            f,
            r#"<label>{label} <select name="{key}"><option value="">any</option>"#
        );
        for v in choices.get(i).into_iter().flatten() {
            let sel = if *v == values[i] { " selected" } else { "" };
            let _ = write!(f, r#"<option value="{0}"{sel}>{0}</option>"#, esc(v));
        }
        f.push_str("</select></label> ");
    }
    f.push_str(r#"<button type="submit">Filter</button></form>"#);
    f
}

pub fn ranking(state: &State, rq: &crate::server::http::Req, id: &str) -> Page {
    let c = category(id)?;
    let min = state.config.min_results;
    let values: [String; 4] =
        crate::server::filtered::FILTERS.map(|(key, _, _)| rq.param(key).unwrap_or("").to_string());
    let filtering = values.iter().any(|v| !v.is_empty());
    let top = if filtering {
        crate::server::filtered::top(&state.db, c, &values, min, rankings::TOP as usize)
    } else {
        rankings::top(&state.db, c, min, rankings::TOP)
    }
    .map_err(db_error)?;
    let choices = crate::server::filtered::choices(&state.db, c).map_err(db_error)?;
    let all = rankings::by_first_seen(&state.db, &c.id).map_err(db_error)?;
    let order = if c.higher_is_better {
        "highest"
    } else {
        "lowest"
    };
    let mut body = format!(
        "<p class=\"note\">Per model: values more than three standard deviations from the model's \
         mean are dropped; models with at least {min} remaining results are ranked, {order} mean \
         first. {} with results in this category.</p>\n<table id=\"ranking\"><tr><th class=\"num\">rank</th>\
         <th>model</th><th class=\"num\">mean ({u})</th><th class=\"num\">std. dev.</th><th class=\"num\">results kept / total</th></tr>\n",
        if all.len() == 1 {
            "1 model".to_string()
        } else {
            format!("{} models", all.len())
        },
        u = esc(c.unit)
    );
    body.insert_str(0, &filter_form(c, &values, &choices));
    if filtering {
        body.insert_str(
            0,
            "<p class=\"note\" id=\"filtered\">Ranked over the results matching the filters only (the 3σ rule applied to them).</p>\n",
        );
    }
    body.push_str(&ranked_rows(&top));
    body.push_str("</table>\n");
    let waiting: Vec<_> = all.iter().filter(|r| r.kept < min).collect();
    if !waiting.is_empty() {
        body.push_str(
            "<h2>Not ranked yet</h2>\n<table id=\"unranked\"><tr><th>model</th><th>why</th></tr>\n",
        );
        for r in waiting {
            let _ = writeln!(
                body,
                r#"<tr class="unranked" data-model="{m}"><td>{link}</td><td>{k} of {min} results (after the 3σ rule: {k} kept of {t})</td></tr>"#,
                m = esc(&r.model),
                link = device_link(&r.model),
                k = r.kept,
                t = r.total
            );
        }
        body.push_str("</table>\n");
    }
    body.push_str(&ranking_chart("ranking-chart", &c.title, c.unit, &top));
    if !all.is_empty() {
        body.push_str("<h2>By first-seen date</h2>\n<p class=\"note\">Each model's mean (after the 3σ rule) against the date its first result arrived: newer models to the right.</p>\n");
        let pts: Vec<_> = all
            .iter()
            .map(|r| (r.model.clone(), r.first_seen, r.mean))
            .collect();
        body.push_str(&charts::by_first_seen(
            "first-seen-chart",
            &c.title,
            c.unit,
            &pts,
        ));
    }
    ok(&c.title, &body)
}

fn category_section(v: &CategoryView, body: &mut String) {
    let Some(c) = categories::find(&v.category) else {
        return;
    };
    let s = &v.stats;
    let _ = writeln!(
        body,
        r#"<h2 id="cat-{id}">{t}</h2>
<table class="stats" data-category="{id}"><tr><th class="num">mean ({u})</th><th class="num">std. dev.</th><th class="num">results kept / total</th><th>first seen</th></tr>
<tr><td class="num">{m}</td><td class="num">{sd}</td><td class="num">{k} / {n}</td><td>{d}</td></tr></table>"#,
        id = esc(&c.id),
        t = esc(&c.title),
        u = esc(c.unit),
        m = num(s.mean),
        sd = num(s.stddev),
        k = s.kept,
        n = s.total,
        d = date(s.first_seen)
    );
    body.push_str("<table class=\"file-systems\"><tr><th>file system</th><th class=\"num\">results</th><th class=\"num\">mean</th><th class=\"num\">std. dev.</th></tr>\n");
    for g in &v.by_file_system {
        let _ = writeln!(
            body,
            r#"<tr><td>{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
            esc(if g.name.is_empty() {
                "(unknown)"
            } else {
                &g.name
            }),
            g.results,
            num(g.mean),
            num(g.stddev)
        );
    }
    body.push_str("</table>\n");
    if v.clusters.len() > 1 {
        let _ = writeln!(
            body,
            "<p class=\"clusters-found\">These results form {} separate clusters{}.</p>",
            v.clusters.len(),
            if v.distinguished_by.is_empty() {
                String::from(" that no recorded attribute tells apart")
            } else {
                format!(", told apart by {}", esc(&v.distinguished_by.join(", ")))
            }
        );
        body.push_str("<table class=\"clusters\"><tr><th>cluster</th><th class=\"num\">results</th><th class=\"num\">range</th><th class=\"num\">mean</th><th>storage model</th><th>file system</th><th>OS</th><th>kernel</th></tr>\n");
        for (i, cl) in v.clusters.iter().enumerate() {
            let attrs: String = cl
                .attributes
                .iter()
                .map(|a| format!("<td>{} ({}/{})</td>", esc(&a.value), a.count, cl.results))
                .collect();
            let _ = writeln!(
                body,
                r#"<tr class="cluster"><td>{}</td><td class="num">{}</td><td class="num">{} – {}</td><td class="num">{}</td>{attrs}</tr>"#,
                i + 1,
                cl.results,
                num(cl.cluster.min),
                num(cl.cluster.max),
                num(cl.cluster.mean)
            );
        }
        body.push_str("</table>\n");
    }
    // Each point's cluster (by the clusters' value ranges; None: dropped by the 3σ rule).
    let values: Vec<f64> = v.series.iter().map(|p| p.1).collect();
    let keep = crate::server::stats::within_three_sigma(&values);
    let cluster: Vec<Option<usize>> = values
        .iter()
        .map(|x| {
            keep(*x).then(|| {
                v.clusters
                    .iter()
                    .position(|c| *x >= c.cluster.min && *x <= c.cluster.max)
                    .unwrap_or(0)
            })
        })
        .collect();
    let kept: Vec<f64> = values.iter().copied().filter(|x| keep(*x)).collect();
    let _ = writeln!(
        body,
        "<p class=\"note\">Distribution of the {} kept results (box: the middle half; line: the median; red: the mean):</p>",
        kept.len()
    );
    body.push_str(&charts::distribution(
        &format!("dist-{}", c.id),
        &format!("{} distribution", c.title),
        c.unit,
        &kept,
        s.mean,
    ));
    body.push_str(&charts::over_time(
        &format!("time-{}", c.id),
        &format!("{} over time", c.title),
        c.unit,
        &v.series,
        &cluster,
    ));
}

pub fn device(state: &State, model: &str) -> Page {
    let views = explain::device(&state.db, model).map_err(db_error)?;
    if views.is_empty() {
        return Err(missing(&format!("No ranked results of model {model}.")));
    }
    let latest = results::list(&state.db, Some(model), None, 10, 0).map_err(db_error)?;
    let mut body = String::new();
    if let Some(r) = latest.first() {
        let _ = writeln!(
            body,
            r#"<table id="identity"><tr><th>manufacturer</th><td>{}</td></tr><tr><th>SoC</th><td>{}</td></tr><tr><th>OS</th><td>{}</td></tr><tr><th>storage</th><td>{}</td></tr><tr><th>file system</th><td>{}</td></tr></table>"#,
            esc(&r.manufacturer),
            esc(&r.soc),
            esc(&r.os),
            esc(&r.storage_model),
            esc(&r.file_system)
        );
    }
    if let Some((score, from)) =
        crate::server::score::of_model(&state.db, model).map_err(db_error)?
    {
        let _ = writeln!(
            body,
            r#"<p id="storage-score">Storage score: <strong>{}</strong> <span class="note">(the geometric mean over {} of this model's mean divided by the median model's, × 1000: the middle of the field scores 1000)</span></p>"#,
            score.round(),
            esc(&from.join(", "))
        );
    }
    for v in &views {
        category_section(v, &mut body);
    }
    body.push_str("<h2>Latest results</h2>\n<ul>\n");
    for r in latest {
        let _ = writeln!(
            body,
            r#"<li><a href="/results/{id}">#{id}</a> {k}, {d}</li>"#,
            id = r.id,
            k = esc(&r.kind),
            d = date(r.submitted_at)
        );
    }
    body.push_str("</ul>\n");
    ok(model, &body)
}

pub fn compare(state: &State, a: &str, b: &str) -> Page {
    if a.is_empty() || b.is_empty() {
        return Err(Reply::html(
            400,
            layout(
                "Compare",
                "<p>Name two models: /compare?a=MODEL&amp;b=MODEL</p>",
            ),
        ));
    }
    let sa = rankings::of_model(&state.db, a).map_err(db_error)?;
    let sb = rankings::of_model(&state.db, b).map_err(db_error)?;
    let mut body = format!(
        "<table id=\"compare\"><tr><th>category</th><th class=\"num\">{}</th><th class=\"num\">{}</th><th class=\"num\">{} / {}</th></tr>\n",
        device_link(a),
        device_link(b),
        esc(a),
        esc(b)
    );
    let mut charts_html = String::new();
    for c in categories::all() {
        let x = sa.iter().find(|(k, _)| *k == c.id).map(|(_, r)| r);
        let y = sb.iter().find(|(k, _)| *k == c.id).map(|(_, r)| r);
        if x.is_none() && y.is_none() {
            continue;
        }
        let cell = |r: Option<&rankings::Ranked>| {
            r.map_or("—".to_string(), |r| {
                format!("{} ± {} (n={})", num(r.mean), num(r.stddev), r.kept)
            })
        };
        let ratio = match (x, y) {
            (Some(x), Some(y)) if y.mean > 0.0 => format!("{:.2}×", x.mean / y.mean),
            _ => "—".into(),
        };
        let _ = writeln!(
            body,
            r#"<tr class="compared" data-category="{id}"><td>{t} ({u})</td><td class="num">{}</td><td class="num">{}</td><td class="num">{ratio}</td></tr>"#,
            cell(x),
            cell(y),
            id = esc(&c.id),
            t = esc(&c.title),
            u = esc(c.unit)
        );
        let rows: Vec<_> = [(a, x), (b, y)]
            .into_iter()
            .filter_map(|(m, r)| r.map(|r| (m.to_string(), r.mean, r.stddev)))
            .collect();
        charts_html.push_str(&charts::bars(
            &format!("compare-{}", c.id),
            &c.title,
            c.unit,
            &rows,
        ));
    }
    body.push_str("</table>\n");
    body.push_str(&charts_html);
    ok(&format!("{a} vs {b}"), &body)
}

fn result_id(id: &str) -> Result<i64, Reply> {
    id.parse()
        .map_err(|_| missing(&format!("There is no result {id}.")))
}

pub fn result(state: &State, id: &str) -> Page {
    let n = result_id(id)?;
    let r = results::get(&state.db, n)
        .map_err(db_error)?
        .ok_or_else(|| missing(&format!("There is no result {n}.")))?;
    let row = &r.row;
    let mut body = format!(
        r#"<p><a href="/results/{n}/report">Full report of this run</a> · <a href="/api/v1/results/{n}">JSON</a></p>
<table id="result"><tr><th>kind</th><td>{k}</td></tr><tr><th>model</th><td>{m}</td></tr><tr><th>SoC</th><td>{soc}</td></tr><tr><th>OS</th><td>{os}</td></tr><tr><th>storage</th><td>{st}</td></tr><tr><th>file system</th><td>{fs}</td></tr><tr><th>measured</th><td>{c}</td></tr><tr><th>submitted</th><td>{d}</td></tr><tr><th>by</th><td>{v}</td></tr></table>
<h2>Ranked values</h2><table id="metrics">"#,
        k = esc(&row.kind),
        m = device_link(&row.model),
        soc = esc(&row.soc),
        os = esc(&row.os),
        st = esc(&row.storage_model),
        fs = esc(&row.file_system),
        c = esc(&row.created_at),
        d = date(row.submitted_at),
        v = esc(&row.tool_version)
    );
    for crate::server::results::Metric {
        category: cat,
        value,
    } in &row.metrics
    {
        let (title, unit) =
            categories::find(cat).map_or((cat.as_str(), ""), |c| (c.title.as_str(), c.unit));
        let _ = writeln!(
            body,
            r#"<tr><td><a href="/rankings/{}">{}</a></td><td class="num">{} {}</td></tr>"#,
            enc(cat),
            esc(title),
            num(*value),
            esc(unit)
        );
    }
    body.push_str("</table>\n");
    ok(&format!("Result #{n}"), &body)
}

/// The run's full report, as `pocketbench results show` prints it.
pub fn report(state: &State, id: &str) -> Page {
    let n = result_id(id)?;
    let r = results::get(&state.db, n)
        .map_err(db_error)?
        .ok_or_else(|| missing(&format!("There is no result {n}.")))?;
    let text = match r.row.kind.as_str() {
        "run" => serde_json::from_value::<crate::results::summary::RunSummary>(r.result.clone())
            .map(|s| crate::report::run_summary::render(&s, None))
            .map_err(|e| e.to_string()),
        "models" => serde_json::from_value::<crate::models::ModelsRun>(r.result.clone())
            .map(|m| crate::models::render::render(&m))
            .map_err(|e| e.to_string()),
        kind => {
            crate::bench_suites::render_value(kind, n, r.result.clone()).map_err(|e| e.to_string())
        }
    };
    let body = match text {
        Ok(t) => format!("<pre id=\"report\">{}</pre>", esc(&t)),
        Err(e) => format!(
            "<p class=\"note\">This result cannot be read as a {} run of this version ({}); its JSON (at most 64 KiB of it here; all of it at <a href=\"/api/v1/results/{n}\">/api/v1/results/{n}</a>):</p><pre id=\"report\">{}</pre>",
            esc(&r.row.kind),
            esc(&e),
            esc(crate::limits::cut_bytes(
                &serde_json::to_string(&r.result).unwrap_or_default(),
                64 << 10
            ))
        ),
    };
    ok(&format!("Report of result #{n}"), &body)
}

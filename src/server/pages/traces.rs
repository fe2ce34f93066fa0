//! The trace gallery (`/traces`) and one trace's page (`/traces/{sha256}`), from the same
//! queries as their JSON ([`crate::server::traces::routes`]).

use super::views::{ranked_rows, ranking_chart};
use super::{date, enc, layout};
use crate::report::html::svg::{esc, num};
use crate::server::http::{Reply, Req};
use crate::server::traces::{routes, TraceRow};
use crate::server::{db_error, State};
use std::fmt::Write as _;

type Page = Result<Reply, Reply>;

/// A JSON refusal of the API as a page.
fn as_page(r: Reply) -> Reply {
    let v: serde_json::Value = serde_json::from_slice(&r.body).unwrap_or_default();
    let message = v
        .pointer("/error/message")
        .and_then(|m| m.as_str())
        .unwrap_or("not found");
    let field = v.pointer("/error/field").and_then(|m| m.as_str());
    let text = match field {
        Some(f) => format!("{f}: {message}"),
        None => message.to_string(),
    };
    Reply::html(
        r.status,
        layout(
            "Not shown",
            &format!("<p class=\"error\">{}</p>", esc(&text)),
        ),
    )
}

/// Statement counts by first keyword, largest first: `SELECT 120 · INSERT 40`.
fn mix(row: &TraceRow) -> String {
    let mut m: Vec<_> = row.mix.iter().collect();
    m.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
    m.iter()
        .take(6)
        .map(|(k, n)| format!("{} {n}", esc(k)))
        .collect::<Vec<_>>()
        .join(" · ")
}

/// The gallery's search form, with the values in use.
fn form(q: &str, source: &str, sort: &str) -> String {
    let sel = |v: &str| if v == sort { " selected" } else { "" };
    format!(
        r#"<form id="filters" method="get" action="/traces"><label>Search <input type="search" name="q" value="{q}"></label> <label>Source <input type="text" name="source" value="{s}" placeholder="any"></label> <label>Order <select name="sort"><option value="recent"{r}>newest first</option><option value="runs"{u}>most replayed first</option></select></label> <button type="submit">Filter</button></form>"#,
        q = esc(q),
        s = esc(source),
        r = sel("recent"),
        u = sel("runs"),
    )
}

/// `/traces`.
pub fn gallery(state: &State, rq: &Req) -> Page {
    let (f, limit, offset) = routes::gallery_query(rq).map_err(as_page)?;
    let (rows, total) =
        crate::server::traces::list(&state.db, &f, limit, offset).map_err(db_error)?;
    let mut body = String::from(
        "<p>App traces published to this server (<code>pocketbench submit --trace</code>): each is \
         replayed by the fleet, and device models are ranked per trace and engine setup.</p>\n",
    );
    body.push_str(&form(&f.q, &f.source, &f.sort));
    let _ = writeln!(
        body,
        "<p class=\"note\" id=\"count\">{total} trace{} match; {} to {} shown.</p>",
        if total == 1 { "" } else { "s" },
        if rows.is_empty() { offset } else { offset + 1 },
        offset + rows.len() as i64
    );
    body.push_str("<table id=\"traces\"><tr><th>title</th><th>statement mix</th><th class=\"num\">statements</th><th class=\"num\">connections</th><th class=\"num\">devices</th><th class=\"num\">runs</th><th>source</th><th>published</th></tr>\n");
    for r in &rows {
        let _ = writeln!(
            body,
            r#"<tr class="trace" data-sha256="{sha}"><td><a href="/traces/{sha}">{t}</a></td><td>{mix}</td><td class="num">{st}</td><td class="num">{c}</td><td class="num">{d}</td><td class="num">{n}</td><td>{src}</td><td>{date}</td></tr>"#,
            sha = esc(&r.sha256),
            t = esc(&r.title),
            mix = mix(r),
            st = r.statements,
            c = r.connections,
            d = r.devices,
            n = r.runs,
            src = esc(&r.source),
            date = date(r.submitted_at)
        );
    }
    body.push_str("</table>\n");
    let link = |off: i64, label: &str| {
        format!(
            r#"<a class="page" href="/traces?q={}&amp;source={}&amp;sort={}&amp;limit={limit}&amp;offset={off}">{label}</a> "#,
            enc(&f.q),
            enc(&f.source),
            enc(&f.sort)
        )
    };
    body.push_str("<p id=\"pages\">");
    if offset > 0 {
        body.push_str(&link((offset - limit).max(0), "newer"));
    }
    if offset + (rows.len() as i64) < total {
        body.push_str(&link(offset + limit, "older"));
    }
    body.push_str("</p>\n");
    Ok(Reply::html(200, layout("App traces", &body)))
}

/// The arrival figure: the trace's start-to-start gaps at their percentiles (from its
/// `trace stats`); nothing for a trace of one statement.
fn arrivals(stats: &serde_json::Value) -> String {
    let gaps = &stats["inter_arrival_us"];
    if gaps["count"].as_u64().unwrap_or(0) == 0 {
        return String::new();
    }
    let rows: Vec<(String, f64, f64)> = ["p50", "p90", "p95", "p99", "max"]
        .iter()
        .map(|p| (format!("gap {p}"), gaps[p].as_f64().unwrap_or(0.0), 0.0))
        .collect();
    format!(
        "<h2>Arrivals</h2>\n{}",
        super::charts::bars(
            "arrivals-chart",
            "time between statement starts",
            "µs",
            &rows
        )
    )
}

/// `/traces/{sha256}`.
pub fn one(state: &State, rq: &Req, sha: &str) -> Page {
    let (t, stats_text) = routes::one_trace(state, rq, sha).map_err(as_page)?;
    let r = &t.row;
    let mut body = format!(
        "<p id=\"about\">{d}</p>\n<table id=\"facts\">\
         <tr><th>replay it</th><td><code>pocketbench run --trace SERVER/traces/{sha}</code></td></tr>\
         <tr><th>SHA-256</th><td>{sha}</td></tr><tr><th>digest</th><td>{digest}</td></tr>\
         <tr><th>source</th><td>{src}</td></tr><tr><th>anonymised</th><td>{anon}</td></tr>\
         <tr><th>size</th><td>{bytes} bytes, {st} statements, {c} connections</td></tr>\
         <tr><th>published</th><td>{date} by {who}</td></tr>\
         <tr><th>replays</th><td>{runs} runs on {devices} device models</td></tr></table>\n",
        d = esc(&r.description),
        sha = esc(&r.sha256),
        digest = esc(&r.digest),
        src = esc(&r.source),
        anon = esc(&r.anonymised),
        bytes = r.bytes,
        st = r.statements,
        c = r.connections,
        date = date(r.submitted_at),
        who = esc(&r.submitter),
        runs = r.runs,
        devices = r.devices,
    );
    body.push_str(&arrivals(&t.stats));
    if !t.setups.is_empty() {
        body.push_str("<h2>Engines and options compared</h2>\n<table id=\"setups\"><tr><th>setup</th><th class=\"num\">runs</th><th class=\"num\">device models</th><th class=\"num\">mean busy time (ms)</th><th class=\"num\">mean p95 (µs)</th></tr>\n");
        for s in &t.setups {
            let _ = writeln!(
                body,
                r#"<tr class="setup" data-setup="{s}"><td>{s}</td><td class="num">{n}</td><td class="num">{d}</td><td class="num">{b}</td><td class="num">{p}</td></tr>"#,
                s = esc(&s.setup),
                n = s.runs,
                d = s.devices,
                b = num(s.mean_busy_ms),
                p = num(s.mean_p95_us)
            );
        }
        body.push_str("</table>\n");
    }
    let _ = writeln!(
        body,
        "<p class=\"note\">Per setup and model: values more than three standard deviations from the \
         model's mean are dropped; models with at least {} remaining results are ranked, lowest \
         mean first.</p>",
        t.min_results
    );
    for (i, s) in t.setups.iter().enumerate() {
        let _ = writeln!(body, "<h2>{}</h2>", esc(&s.setup));
        for (figure, unit, top) in [("busy time", "ms", &s.busy), ("p95", "µs", &s.p95)] {
            let id = format!("ranking-{i}-{}", if unit == "ms" { "busy" } else { "p95" });
            let _ = writeln!(
                body,
                "<table class=\"ranking\" id=\"{id}\" data-setup=\"{s}\"><tr><th class=\"num\">rank</th><th>model</th><th class=\"num\">{f} ({unit})</th><th class=\"num\">std. dev.</th><th class=\"num\">results kept / total</th></tr>",
                s = esc(&s.setup),
                f = figure
            );
            body.push_str(&ranked_rows(top));
            body.push_str("</table>\n");
            let title = format!("{}, {figure}", s.setup);
            body.push_str(&ranking_chart(&format!("{id}-chart"), &title, unit, top));
        }
    }
    let _ = write!(
        body,
        "<h2>The trace (trace stats)</h2>\n<pre id=\"stats\">{}</pre>\n",
        esc(&stats_text)
    );
    Ok(Reply::html(200, layout(&r.title, &body)))
}

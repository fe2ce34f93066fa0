//! `/models?q=TEXT`: every device model with results, with how many and the manufacturer, OS
//! and storage last seen, filtered by a case-insensitive search over every value any of the
//! model's results carries in its device fields (model, manufacturer, SoC, OS, kernel, storage
//! model, file system: a model whose first results said Android 13 and last say Android 14 is
//! found by either) — a plain form, no script.

use super::super::{db_error, State};
use super::{enc, layout};
use crate::report::html::svg::esc;
use crate::server::http::Reply;
use std::fmt::Write as _;

/// The most models the page lists.
pub const MAX_MODELS: i64 = 10_000;

pub fn page(state: &State, q: &str) -> Result<Reply, Reply> {
    let rows = state
        .db
        .read()
        .and_then(|mut c| {
            c.query(
                "SELECT r.model, r.manufacturer, r.os, r.storage_model, r.file_system, n.c
                 FROM results r JOIN (SELECT model, COUNT(*) AS c, MAX(id) AS last FROM results
                     GROUP BY model) n ON r.id = n.last
                 ORDER BY r.model LIMIT $1",
                &[MAX_MODELS.into()],
            )
        })
        .map_err(db_error)?;
    let needle = q.to_lowercase();
    let found = if needle.is_empty() {
        None
    } else {
        Some(matching(state, &needle)?)
    };
    let mut body = format!(
        r#"<form id="search" method="get" action="/models"><input type="search" name="q" value="{}" placeholder="model, manufacturer, OS, storage"> <button type="submit">Search</button></form>
<table id="models"><tr><th>model</th><th>manufacturer</th><th>OS</th><th>storage</th><th>file system</th><th class="num">results</th></tr>
"#,
        esc(q)
    );
    let mut shown = 0;
    for r in &rows {
        let fields: Vec<String> = (0..5).map(|i| r.text(i)).collect();
        if found.as_ref().is_some_and(|f| !f.contains(&fields[0])) {
            continue;
        }
        shown += 1;
        let _ = writeln!(
            body,
            r#"<tr class="model" data-model="{m}"><td><a href="/devices/{e}">{m}</a></td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class="num">{}</td></tr>"#,
            esc(&fields[1]),
            esc(&fields[2]),
            esc(&fields[3]),
            esc(&fields[4]),
            r.int(5),
            m = esc(&fields[0]),
            e = enc(&fields[0]),
        );
    }
    let _ = writeln!(
        body,
        "</table>\n<p class=\"note\" id=\"models-count\">{shown} of {} models.</p>",
        rows.len()
    );
    Ok(Reply::html(200, layout("All models", &body)))
}

/// The device fields searched, as `results` columns.
const SEARCHED: [&str; 6] = [
    "manufacturer",
    "soc",
    "os",
    "kernel",
    "storage_model",
    "file_system",
];

/// The most (model, value) pairs a search reads.
pub const MAX_SEARCHED: i64 = 1_000_000;

/// The models one of whose results carries `needle` (lower case) in a device field.
fn matching(state: &State, needle: &str) -> Result<std::collections::HashSet<String>, Reply> {
    let union: Vec<String> = SEARCHED
        .iter()
        .map(|c| format!("SELECT model, {c} AS v FROM results"))
        .collect();
    let rows = state
        .db
        .read()
        .and_then(|mut c| {
            c.query(
                &format!(
                    "SELECT model, model AS v FROM results UNION {} LIMIT $1",
                    union.join(" UNION ")
                ),
                &[MAX_SEARCHED.into()],
            )
        })
        .map_err(db_error)?;
    Ok(rows
        .iter()
        .filter(|r| r.text(1).to_lowercase().contains(needle))
        .map(|r| r.text(0))
        .collect())
}

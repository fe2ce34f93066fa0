//! Rankings of a subset of results: only those whose device matches every filter given
//! (manufacturer, OS, storage model, file system; exact values). The kept statistics in
//! `model_stats` cover all of a model's results, so a filtered ranking applies the 3σ rule to
//! the matching values on the spot (at most [`MAX_VALUES`] of the newest).

use super::categories::Category;
use super::db::Db;
use super::rankings::Ranked;
use super::stats;
use crate::error::Result;
use std::collections::BTreeMap;

/// The most values a filtered ranking reads.
pub const MAX_VALUES: i64 = 1_000_000;

/// The filters, each empty when not used: (query key, label, results column).
pub const FILTERS: [(&str, &str, &str); 4] = [
    ("manufacturer", "manufacturer", "manufacturer"),
    ("os", "OS version", "os"),
    ("storage", "storage model", "storage_model"),
    ("fs", "file system", "file_system"),
];

/// Every model of `cat` ranked over the results matching `values` (one per [`FILTERS`]
/// entry, empty: any), best first, with at least `min_results` kept.
pub fn top(
    db: &Db,
    cat: &Category,
    values: &[String; 4],
    min_results: i64,
    limit: usize,
) -> Result<Vec<Ranked>> {
    let rows = db.read()?.query(
        "SELECT m.model, m.value, m.submitted_at FROM metrics m JOIN results r ON r.id = m.result_id
         WHERE m.category = $1 AND ($2 = '' OR r.manufacturer = $2) AND ($3 = '' OR r.os = $3)
           AND ($4 = '' OR r.storage_model = $4) AND ($5 = '' OR r.file_system = $5)
         ORDER BY m.result_id DESC LIMIT $6",
        &[
            cat.id.as_str().into(),
            values[0].as_str().into(),
            values[1].as_str().into(),
            values[2].as_str().into(),
            values[3].as_str().into(),
            MAX_VALUES.into(),
        ],
    )?;
    let mut by: BTreeMap<String, (Vec<f64>, i64)> = BTreeMap::new();
    for r in &rows {
        let e = by.entry(r.text(0)).or_insert((Vec::new(), i64::MAX));
        e.0.push(r.real(1));
        e.1 = e.1.min(r.int(2));
    }
    let mut out: Vec<Ranked> = by
        .into_iter()
        .map(|(model, (v, first_seen))| {
            let k = stats::three_sigma(&v);
            Ranked {
                model,
                mean: k.mean,
                stddev: k.stddev,
                kept: k.kept as i64,
                total: k.total as i64,
                first_seen,
            }
        })
        .filter(|r| r.kept >= min_results)
        .collect();
    out.sort_by(|a, b| {
        let o = a.mean.total_cmp(&b.mean);
        (if cat.higher_is_better { o.reverse() } else { o }).then(a.model.cmp(&b.model))
    });
    out.truncate(limit);
    Ok(out)
}

/// The distinct values of each filter's column among `cat`'s results (for the form), at most
/// 200 each.
pub fn choices(db: &Db, cat: &Category) -> Result<Vec<Vec<String>>> {
    let mut out = Vec::new();
    for (_, _, column) in FILTERS {
        let rows = db.read()?.query(
            &format!(
                "SELECT DISTINCT r.{column} FROM results r JOIN metrics m ON m.result_id = r.id
                 WHERE m.category = $1 AND r.{column} <> '' ORDER BY r.{column} LIMIT 200"
            ),
            &[cat.id.as_str().into()],
        )?;
        out.push(rows.iter().map(|r| r.text(0)).collect());
    }
    Ok(out)
}

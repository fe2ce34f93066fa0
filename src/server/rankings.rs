//! Rankings: per category, each model's 3σ-filtered mean and standard deviation, kept in
//! `model_stats` and brought up to date when read (a submission only marks its models stale,
//! so submitting stays one small transaction; a ranking recomputes just the stale models from
//! their index range and then reads the ordered table).

use super::categories::Category;
use super::db::{transaction, Db, Row};
use super::stats;
use crate::error::Result;
use serde::Serialize;

/// The fewest results (after the 3σ rule) a model needs to be ranked, by default.
pub const DEFAULT_MIN_RESULTS: i64 = 25;
/// Rows of a ranking table.
pub const TOP: i64 = 10;

/// One model in one category.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Ranked {
    pub model: String,
    pub mean: f64,
    pub stddev: f64,
    /// Results the 3σ rule kept, and all results.
    pub kept: i64,
    pub total: i64,
    /// When the model's first result in this category arrived (Unix milliseconds).
    pub first_seen: i64,
}

fn ranked(r: &Row) -> Ranked {
    Ranked {
        model: r.text(0),
        mean: r.real(1),
        stddev: r.real(2),
        kept: r.int(3),
        total: r.int(4),
        first_seen: r.int(5),
    }
}

/// Recompute the stale models of `category`. A model that gets a new result while it is being
/// recomputed stays stale (the update names the version it read).
pub fn refresh(db: &Db, category: &str) -> Result<usize> {
    let stale = db.read()?.query(
        "SELECT model, version FROM model_stats WHERE category = $1 AND version <> computed",
        &[category.into()],
    )?;
    if stale.is_empty() {
        return Ok(0);
    }
    let mut updates = Vec::with_capacity(stale.len());
    {
        let mut c = db.read()?;
        for s in &stale {
            let values: Vec<f64> = c
                .query(
                    "SELECT value FROM metrics WHERE category = $1 AND model = $2",
                    &[category.into(), s.text(0).into()],
                )?
                .iter()
                .map(|r| r.real(0))
                .collect();
            updates.push((s.text(0), s.int(1), stats::three_sigma(&values)));
        }
    }
    let mut c = db.write()?;
    transaction(&mut **c, |c| {
        for (model, version, k) in &updates {
            c.execute(
                "UPDATE model_stats SET computed = $3, total = $4, kept = $5, mean = $6, stddev = $7
                 WHERE category = $1 AND model = $2 AND version = $3",
                &[
                    category.into(),
                    model.as_str().into(),
                    (*version).into(),
                    (k.total as i64).into(),
                    (k.kept as i64).into(),
                    k.mean.into(),
                    k.stddev.into(),
                ],
            )?;
        }
        Ok(())
    })?;
    Ok(updates.len())
}

/// The best `limit` models of `category` with at least `min_results` kept results.
pub fn top(db: &Db, cat: &Category, min_results: i64, limit: i64) -> Result<Vec<Ranked>> {
    refresh(db, &cat.id)?;
    let sql = if cat.higher_is_better {
        "SELECT model, mean, stddev, kept, total, first_seen FROM model_stats
         WHERE category = $1 AND kept >= $2 ORDER BY mean DESC, model LIMIT $3"
    } else {
        "SELECT model, mean, stddev, kept, total, first_seen FROM model_stats
         WHERE category = $1 AND kept >= $2 ORDER BY mean ASC, model LIMIT $3"
    };
    let rows = db.read()?.query(
        sql,
        &[cat.id.as_str().into(), min_results.into(), limit.into()],
    )?;
    Ok(rows.iter().map(ranked).collect())
}

/// How many models of `cat` have at least `min_results` kept results (all of them ranked, not
/// just the top [`TOP`]).
pub fn count(db: &Db, cat: &Category, min_results: i64) -> Result<i64> {
    refresh(db, &cat.id)?;
    let n = super::db::scalar(
        &mut **db.read()?,
        "SELECT COUNT(*) FROM model_stats WHERE category = $1 AND kept >= $2",
        &[cat.id.as_str().into(), min_results.into()],
    )?;
    Ok(n.unwrap_or(0))
}

/// Every model with results in `category`, by first-seen date (the model's age on the
/// server, which stands for its release date as AndroBench's trend figures used it).
pub fn by_first_seen(db: &Db, category: &str) -> Result<Vec<Ranked>> {
    refresh(db, category)?;
    let rows = db.read()?.query(
        "SELECT model, mean, stddev, kept, total, first_seen FROM model_stats
         WHERE category = $1 ORDER BY first_seen, model LIMIT 10000",
        &[category.into()],
    )?;
    Ok(rows.iter().map(ranked).collect())
}

/// One model's statistics in every category it has results in (the storage and workload
/// categories; a published trace's are on its own page).
pub fn of_model(db: &Db, model: &str) -> Result<Vec<(String, Ranked)>> {
    let cats = db.read()?.query(
        "SELECT category FROM model_stats WHERE model = $1 AND category NOT LIKE 'trace:%'
         ORDER BY category",
        &[model.into()],
    )?;
    for c in &cats {
        refresh(db, &c.text(0))?;
    }
    let rows = db.read()?.query(
        "SELECT model, mean, stddev, kept, total, first_seen, category FROM model_stats
         WHERE model = $1 AND category NOT LIKE 'trace:%' ORDER BY category",
        &[model.into()],
    )?;
    Ok(rows.iter().map(|r| (r.text(6), ranked(r))).collect())
}

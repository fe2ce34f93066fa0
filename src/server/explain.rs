//! The analyses behind a device's page, as AndroBench published them and one it did not: a
//! model's results over time, the same model on different file systems side by side, and the
//! clusters one model's results fall into, with what distinguishes them (storage model, file
//! system, OS version, kernel).

use super::db::Db;
use super::rankings::{self, Ranked};
use super::stats::{self, Cluster};
use crate::error::Result;
use serde::Serialize;
use std::collections::BTreeMap;

/// The most results of one model and category an analysis reads (the newest).
pub const MAX_POINTS: i64 = 100_000;

/// One result's value with the attributes clusters are explained by.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Point {
    pub result_id: i64,
    pub submitted_at: i64,
    pub value: f64,
    pub storage_model: String,
    pub file_system: String,
    pub os: String,
    pub kernel: String,
}

/// Results of one group (a file system, a cluster).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Group {
    pub name: String,
    pub results: usize,
    pub mean: f64,
    pub stddev: f64,
}

/// An attribute's most common value within a cluster.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Attribute {
    pub attribute: &'static str,
    pub value: String,
    /// How many of the cluster's results have that value.
    pub count: usize,
}

#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ExplainedCluster {
    #[serde(flatten)]
    pub cluster: Cluster,
    pub results: usize,
    pub attributes: Vec<Attribute>,
}

/// Everything the device page shows for one category.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CategoryView {
    pub category: String,
    pub stats: Ranked,
    pub by_file_system: Vec<Group>,
    pub clusters: Vec<ExplainedCluster>,
    /// Attributes whose most common value differs between the clusters.
    pub distinguished_by: Vec<&'static str>,
    /// (submitted_at, value) oldest first.
    pub series: Vec<(i64, f64)>,
}

pub fn points(db: &Db, model: &str, category: &str) -> Result<Vec<Point>> {
    let rows = db.read()?.query(
        "SELECT r.id, m.submitted_at, m.value, r.storage_model, r.file_system, r.os, r.kernel
         FROM metrics m JOIN results r ON r.id = m.result_id
         WHERE m.category = $1 AND m.model = $2 ORDER BY m.result_id DESC LIMIT $3",
        &[category.into(), model.into(), MAX_POINTS.into()],
    )?;
    let mut v: Vec<Point> = rows
        .iter()
        .map(|r| Point {
            result_id: r.int(0),
            submitted_at: r.int(1),
            value: r.real(2),
            storage_model: r.text(3),
            file_system: r.text(4),
            os: r.text(5),
            kernel: r.text(6),
        })
        .collect();
    v.reverse();
    Ok(v)
}

/// Where a point keeps one attribute.
type Field = fn(&Point) -> &str;

/// The attributes clusters are explained by: name and where a point keeps it.
const ATTRIBUTES: [(&str, Field); 4] = [
    ("storage model", |p| &p.storage_model),
    ("file system", |p| &p.file_system),
    ("OS", |p| &p.os),
    ("kernel", |p| &p.kernel),
];

fn groups<'a>(
    points: impl Iterator<Item = &'a Point>,
    key: impl Fn(&Point) -> String,
) -> Vec<Group> {
    let mut by: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for p in points {
        by.entry(key(p)).or_default().push(p.value);
    }
    by.into_iter()
        .map(|(name, v)| {
            let (mean, stddev) = stats::mean_sd(&v);
            Group {
                name,
                results: v.len(),
                mean,
                stddev,
            }
        })
        .collect()
}

/// The analyses of one category's points. Clusters are looked for among the points the 3σ rule
/// keeps (as the model's ranked mean is); the file systems and the series show every point.
pub fn view(category: &str, stats: Ranked, points: &[Point]) -> CategoryView {
    let keep = stats::within_three_sigma(&points.iter().map(|p| p.value).collect::<Vec<_>>());
    let mut sorted: Vec<&Point> = points.iter().filter(|p| keep(p.value)).collect();
    sorted.sort_by(|a, b| a.value.total_cmp(&b.value));
    let values: Vec<f64> = sorted.iter().map(|p| p.value).collect();
    let clusters: Vec<ExplainedCluster> = stats::clusters(&values)
        .into_iter()
        .map(|c| {
            let members = &sorted[c.from..c.to];
            let attributes = ATTRIBUTES
                .iter()
                .map(|&(a, of)| {
                    let mut counts: BTreeMap<String, usize> = BTreeMap::new();
                    for p in members {
                        *counts.entry(of(p).to_string()).or_default() += 1;
                    }
                    let (value, count) = counts
                        .into_iter()
                        .max_by(|x, y| x.1.cmp(&y.1).then(y.0.cmp(&x.0)))
                        .unwrap_or_default();
                    Attribute {
                        attribute: a,
                        value,
                        count,
                    }
                })
                .collect();
            ExplainedCluster {
                results: c.to - c.from,
                cluster: c,
                attributes,
            }
        })
        .collect();
    let distinguished_by = if clusters.len() < 2 {
        Vec::new()
    } else {
        ATTRIBUTES
            .iter()
            .enumerate()
            .filter(|(i, _)| {
                let tops: std::collections::BTreeSet<&str> = clusters
                    .iter()
                    .map(|c| c.attributes[*i].value.as_str())
                    .collect();
                tops.len() == clusters.len()
            })
            .map(|(_, a)| a.0)
            .collect()
    };
    CategoryView {
        category: category.to_string(),
        stats,
        by_file_system: groups(points.iter(), |p| p.file_system.clone()),
        clusters,
        distinguished_by,
        series: points.iter().map(|p| (p.submitted_at, p.value)).collect(),
    }
}

/// The device page's data: every category the model has results in.
pub fn device(db: &Db, model: &str) -> Result<Vec<CategoryView>> {
    let mut out = Vec::new();
    for (category, stats) in rankings::of_model(db, model)? {
        let pts = points(db, model, &category)?;
        out.push(view(&category, stats, &pts));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    //! Two eMMC vendors in one model: two clusters, told apart by the storage model only, with
    //! or without one wild value beside them.
    use super::*;

    fn point(i: i64, value: f64, storage_model: &str) -> Point {
        Point {
            result_id: i,
            submitted_at: i,
            value,
            storage_model: storage_model.into(),
            file_system: "ext4".into(),
            os: "Android 2.3".into(),
            kernel: "2.6.35".into(),
        }
    }

    #[test]
    fn one_outlier_does_not_merge_two_clusters() {
        // 10 × 13 and 10 × 18 beside one 1000: mean 1310/21 = 62.4, squared deviations
        // 10·49.4² + 10·44.4² + 937.6² = 923 211, sd √(923 211/20) = 214.8; 1000 is 937.6 from
        // the mean, past 3σ = 644.5: dropped before clustering. Kept in, it stretches the range
        // to 987, and the 5-wide gap between the vendors is under a tenth of it.
        let mut pts: Vec<Point> = (0..10).map(|i| point(i, 13.0, "MAG4F")).collect();
        pts.extend((10..20).map(|i| point(i, 18.0, "KLM8G")));
        pts.push(point(20, 1000.0, "KLM8G"));
        let stats = Ranked {
            model: "GT-I9000".into(),
            mean: 15.5,
            stddev: 2.5,
            kept: 20,
            total: 21,
            first_seen: 0,
        };
        let v = view("seq-read", stats, &pts);
        let sizes: Vec<usize> = v.clusters.iter().map(|c| c.results).collect();
        assert_eq!(sizes, [10, 10]);
        assert_eq!(v.distinguished_by, vec!["storage model"]);
        assert_eq!(v.series.len(), 21);
    }

    #[test]
    fn clusters_are_explained_by_the_attribute_that_differs() {
        let mut pts = Vec::new();
        for i in 0..20 {
            let fast = i % 2 == 0;
            pts.push(Point {
                result_id: i,
                submitted_at: i,
                value: if fast {
                    18.0 + (i % 4) as f64 * 0.05
                } else {
                    13.0 + (i % 3) as f64 * 0.05
                },
                storage_model: if fast { "KLM8G" } else { "MAG4F" }.into(),
                file_system: "ext4".into(),
                os: "Android 2.3".into(),
                kernel: if i < 10 { "2.6.35" } else { "2.6.36" }.into(),
            });
        }
        let stats = Ranked {
            model: "GT-I9000".into(),
            mean: 15.5,
            stddev: 2.5,
            kept: 20,
            total: 20,
            first_seen: 0,
        };
        let v = view("seq-read", stats, &pts);
        assert_eq!(v.clusters.len(), 2);
        assert_eq!(v.clusters[0].attributes[0].value, "MAG4F");
        assert_eq!(v.clusters[0].attributes[0].count, 10);
        assert_eq!(v.clusters[1].attributes[0].value, "KLM8G");
        assert_eq!(v.distinguished_by, vec!["storage model"]);
        assert_eq!(v.by_file_system.len(), 1);
        assert_eq!(v.by_file_system[0].results, 20);
        assert_eq!(v.series.len(), 20);
    }
}

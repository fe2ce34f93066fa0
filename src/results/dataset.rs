//! A set of stored runs ready for statistics and figures: each run's summary, its study, cell
//! and repeat (when it came from `pocketbench matrix`) and its labels; the runs grouped into
//! configurations (a study's cell, or the same workload/engine/options/delay/pacing for runs
//! made one by one); and each configuration's pooled per-operation latencies.

use super::filter::{Filter, Subject};
use super::store::Store;
use super::summary::RunSummary;
use crate::error::{Result, ResultExt};
use crate::stats::LatencyHistogram;

/// Where a run sits in a study.
#[derive(Clone, Debug)]
pub struct StudyTag {
    pub id: i64,
    pub name: String,
    /// 0-based cell index and repeat.
    pub cell: usize,
    pub repeat: u32,
}

pub struct RunRecord {
    pub id: i64,
    pub summary: RunSummary,
    /// The summary as stored, for keys newer than [`RunSummary`] (e.g. `energy_j`).
    pub raw: serde_json::Value,
    pub study: Option<StudyTag>,
    /// Axis → value (a study's labels, or the run's own settings).
    pub labels: Vec<(String, String)>,
}

/// Runs that repeat one configuration.
pub struct Group {
    pub labels: Vec<(String, String)>,
    /// Indices into [`Dataset::runs`], in run-id order.
    pub runs: Vec<usize>,
    /// Short display name: the labels that differ between groups.
    pub name: String,
    /// Service time of every stored operation of every run in the group.
    pub pooled: LatencyHistogram,
}

pub struct Dataset {
    pub runs: Vec<RunRecord>,
    pub groups: Vec<Group>,
    /// Every label key, in first-seen order.
    pub keys: Vec<String>,
}

impl Subject for RunRecord {
    fn id(&self) -> i64 {
        self.id
    }

    fn values(&self, key: &str) -> Vec<String> {
        let s = &self.summary;
        let mut out: Vec<String> = match (key, &self.study) {
            ("study", Some(t)) => vec![t.id.to_string(), t.name.clone()],
            ("cell", Some(t)) => vec![(t.cell + 1).to_string()],
            ("repeat", Some(t)) => vec![(t.repeat + 1).to_string()],
            ("workload", _) => vec![s.workload.name.clone()],
            ("engine", _) => vec![s.engine.name.clone()],
            ("delay", _) => vec![s.delay.clone()],
            ("pacing", _) => vec![s.pacing.clone()],
            _ => Vec::new(),
        };
        out.extend(
            self.labels
                .iter()
                .filter(|(k, _)| k == key)
                .map(|(_, v)| v.clone()),
        );
        if key == "governor" && out.is_empty() {
            out.push(observed_governor(&s.environment));
        }
        out
    }
}

impl Dataset {
    /// Load the runs of `store` that `filter` selects (its keys are checked first).
    pub fn load(store: &Store, filter: &Filter) -> Result<Dataset> {
        let all = load_runs(store)?;
        let mut keys: Vec<String> = Vec::new();
        for r in &all {
            for (k, _) in &r.labels {
                if !keys.contains(k) {
                    keys.push(k.clone());
                }
            }
        }
        filter.check_keys(&keys)?;
        let runs: Vec<RunRecord> = all.into_iter().filter(|r| filter.matches(r)).collect();
        let mut groups = group(&runs);
        fill_labels(&mut groups, &runs);
        for g in &mut groups {
            for &i in &g.runs {
                pool(store, runs[i].id, &mut g.pooled)?;
            }
        }
        name_groups(&mut groups);
        Ok(Dataset { runs, groups, keys })
    }

    /// The group's runs.
    pub fn of<'a>(&'a self, g: &'a Group) -> impl Iterator<Item = &'a RunRecord> + 'a {
        g.runs.iter().map(move |&i| &self.runs[i])
    }

    /// The value of `key` in a group's labels (or the first run's own setting).
    pub fn label(&self, g: &Group, key: &str) -> String {
        if let Some((_, v)) = g.labels.iter().find(|(k, _)| k == key) {
            return v.clone();
        }
        g.runs
            .first()
            .and_then(|&i| self.runs[i].values(key).into_iter().next())
            .unwrap_or_else(|| "-".into())
    }
}

fn load_runs(store: &Store) -> Result<Vec<RunRecord>> {
    let mut stmt = store
        .conn()
        .prepare(
            "SELECT r.id, r.summary, m.study_id, s.name, m.cell_index, m.repeat, m.labels
             FROM runs r LEFT JOIN matrix_cells m ON m.run_id = r.id
             LEFT JOIN studies s ON s.id = m.study_id
             WHERE r.kind = 'run'
             ORDER BY r.id",
        )
        .run_err("results store")?;
    let rows = stmt
        .query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)?,
                r.get::<_, String>(1)?,
                r.get::<_, Option<i64>>(2)?,
                r.get::<_, Option<String>>(3)?,
                r.get::<_, Option<i64>>(4)?,
                r.get::<_, Option<u32>>(5)?,
                r.get::<_, Option<String>>(6)?,
            ))
        })
        .run_err("results store")?;
    let mut out = Vec::new();
    for row in rows {
        let (id, text, study, name, cell, repeat, labels) = row.run_err("results store")?;
        let raw: serde_json::Value =
            serde_json::from_str(&text).run_err(format!("results store: run {id}"))?;
        // From the text, as every other reader of a summary does (one instance of its
        // deserializer in the binary, not a second one over `Value`).
        let summary: RunSummary =
            serde_json::from_str(&text).run_err(format!("results store: run {id} summary"))?;
        let study = match (study, name, cell, repeat) {
            (Some(id), Some(name), Some(cell), Some(repeat)) => Some(StudyTag {
                id,
                name,
                cell: cell as usize,
                repeat,
            }),
            _ => None,
        };
        let labels = match labels {
            Some(text) => serde_json::from_str::<Vec<(String, String)>>(&text)
                .run_err(format!("results store: run {id} labels"))?,
            None => own_labels(&summary),
        };
        out.push(RunRecord {
            id,
            summary,
            raw,
            study,
            labels,
        });
    }
    Ok(out)
}

/// The governor a run observed: `observed schedutil`, or `unknown` when it could not be read.
fn observed_governor(env: &serde_json::Value) -> String {
    match env.pointer("/governor/value").and_then(|v| v.as_str()) {
        Some(g) => format!("observed {g}"),
        None => "unknown".into(),
    }
}

/// Labels of a run made with `pocketbench run`: its settings.
fn own_labels(s: &RunSummary) -> Vec<(String, String)> {
    let options: Vec<String> = s
        .engine
        .options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    vec![
        ("workload".into(), s.workload.name.clone()),
        ("engine".into(), s.engine.name.clone()),
        ("option".into(), options.join(",")),
        ("delay".into(), s.delay.clone()),
        ("pacing".into(), s.pacing.clone()),
    ]
}

/// Group runs by (study, cell), or by labels for runs outside studies.
fn group(runs: &[RunRecord]) -> Vec<Group> {
    let mut groups: Vec<(Option<(i64, usize)>, Group)> = Vec::new();
    for (i, r) in runs.iter().enumerate() {
        let key = r.study.as_ref().map(|t| (t.id, t.cell));
        let found = groups
            .iter_mut()
            .find(|(k, g)| *k == key && (key.is_some() || g.labels == r.labels));
        match found {
            Some((_, g)) => g.runs.push(i),
            None => groups.push((
                key,
                Group {
                    labels: r.labels.clone(),
                    runs: vec![i],
                    name: String::new(),
                    pooled: LatencyHistogram::default(),
                },
            )),
        }
    }
    groups.sort_by_key(|(k, g)| (k.is_none(), *k, g.runs[0]));
    let studies = {
        let mut s: Vec<i64> = groups.iter().filter_map(|(k, _)| k.map(|k| k.0)).collect();
        s.dedup();
        s.len()
    };
    groups
        .into_iter()
        .map(|(k, mut g)| {
            if let (Some((study, _)), true) = (k, studies > 1) {
                g.labels.insert(0, ("study".into(), study.to_string()));
            }
            g
        })
        .collect()
}

/// A label some groups have and others lack (an `include`d cell's extra flag) is filled in
/// from the runs' own settings where they record it (e.g. `engine=sqlite`).
fn fill_labels(groups: &mut [Group], runs: &[RunRecord]) {
    let mut keys: Vec<String> = Vec::new();
    for g in groups.iter() {
        for (k, _) in &g.labels {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    for g in groups.iter_mut() {
        for k in &keys {
            if g.labels.iter().any(|(key, _)| key == k) {
                continue;
            }
            if let Some(v) = runs[g.runs[0]].values(k).into_iter().next() {
                g.labels.push((k.clone(), v));
            }
        }
    }
}

/// Name each group by the labels that differ between groups.
fn name_groups(groups: &mut [Group]) {
    let value = |g: &Group, k: &str| {
        g.labels
            .iter()
            .find(|(key, _)| key == k)
            .map_or("-".to_string(), |(_, v)| v.clone())
    };
    let mut keys: Vec<String> = Vec::new();
    for g in groups.iter() {
        for (k, _) in &g.labels {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
    }
    let varying: Vec<String> = keys
        .into_iter()
        .filter(|k| groups.iter().any(|g| value(g, k) != value(&groups[0], k)))
        .collect();
    for g in groups.iter_mut() {
        let name: Vec<String> = varying
            .iter()
            .map(|k| format!("{k}={}", value(g, k)))
            .collect();
        g.name = if name.is_empty() {
            "all runs".into()
        } else {
            name.join(" ")
        };
    }
}

/// Add run `id`'s stored service times to `hist`.
fn pool(store: &Store, id: i64, hist: &mut LatencyHistogram) -> Result<()> {
    let mut stmt = store
        .conn()
        .prepare_cached("SELECT end_ns - start_ns FROM op_samples WHERE run_id = ?1")
        .run_err("results store: samples")?;
    let mut rows = stmt.query([id]).run_err("results store: samples")?;
    while let Some(row) = rows.next().run_err("results store: samples")? {
        let ns: i64 = row.get(0).run_err("results store: samples")?;
        hist.record(ns.max(0) as u64);
    }
    Ok(())
}

/// One reading of a run's stored frequency timeline (`frequency_samples`).
#[derive(Clone, Debug, PartialEq)]
pub struct FreqReading {
    /// Nanoseconds since the run's start (the same origin as `op_samples.start_ns`).
    pub t_ns: i64,
    pub policy: String,
    pub khz: u32,
}

/// The frequency timeline stored for run `id`, in time order (empty when the run had no
/// sampler, or the store predates the table).
pub fn frequency_timeline(store: &Store, id: i64) -> Result<Vec<FreqReading>> {
    let exists = super::guard::has_table(store.conn(), "main", "frequency_samples")
        .run_err("results store: frequency samples")?;
    if !exists {
        return Ok(Vec::new());
    }
    let mut stmt = store
        .conn()
        .prepare_cached(
            "SELECT t_ns, policy, khz FROM frequency_samples WHERE run_id = ?1 ORDER BY t_ns, policy",
        )
        .run_err("results store: frequency samples")?;
    let rows = stmt
        .query_map([id], |r| {
            Ok(FreqReading {
                t_ns: r.get(0)?,
                policy: r.get(1)?,
                khz: r.get(2)?,
            })
        })
        .run_err("results store: frequency samples")?;
    rows.collect::<std::result::Result<_, _>>()
        .run_err("results store: frequency samples")
}

/// Why runs have no frequency timeline, from their summaries' `frequency` section: each
/// distinct reason once, with "this device" said as the device that produced the runs.
pub fn frequency_missing_reasons<'a>(runs: impl Iterator<Item = &'a RunRecord>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for r in runs {
        let f = r.raw.get("frequency");
        let why = match f.and_then(|f| f.get("reason")).and_then(|v| v.as_str()) {
            Some(reason) => {
                reason.replace("on this device", "on the device that produced these runs")
            }
            None if f.is_none_or(|f| f.is_null()) => {
                "runs stored without a frequency section".into()
            }
            None if f.and_then(|f| f.get("sampler")).is_none_or(|s| s.is_null()) => {
                "frequency sampling was off (--freq-sample off)".into()
            }
            None => "the sampler stored no readings".into(),
        };
        if !out.contains(&why) {
            out.push(why);
        }
    }
    out
}

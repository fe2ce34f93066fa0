//! The PocketData SQL workloads, generated as SQL text shaped like the original study's
//! workload files: table `YCSBDATA`, 500 rows keyed 500..999, then 1 800 statements.
//!
//! * `pocketdata-a` … `pocketdata-f` run YCSB's A–F mixes as SQL: a read is a point
//!   `SELECT` by key, an update rewrites the whole row, an insert adds the key above the
//!   current maximum, a scan is `WHERE key > k ORDER BY key ASC LIMIT n`. A read-modify-write
//!   is emitted as two statements, the `SELECT` and then the full-row `UPDATE` of the same key,
//!   so the read's cost is measured as it is in an application; `info.run_ops` counts
//!   statements and is therefore larger than the operation count for `pocketdata-f`. Keys are
//!   chosen as YCSB does (scrambled zipfian; latest for D).
//! * `pocketdata-ia`, `-ib`, `-ic` mix key-range scans, selects on value columns (equality on
//!   one to three int columns; a one- or two-dimensional float range), `+1` updates and
//!   inserts, in the shares measured in the original IA trace. Scans and updates favour recent
//!   keys, as in that trace. Values are small (ints 0..=100, floats 0..=0.01) so that the
//!   selects match some rows.
//!
//! Unlike the original files, every point statement (select or update by key) targets a row
//! that exists, unless a miss ratio asks for some to target keys below the loaded range.

pub mod json;
mod mix;
mod settings;
mod statements;
mod stream;
#[cfg(test)]
pub(crate) mod tests;

pub use statements::CREATE_TABLE;

use crate::error::Result;
use crate::workload::model::DataModel;
use crate::workload::op::Op;
use crate::workload::rng::Rng;
use crate::workload::{Overrides, Workload, WorkloadInfo};
use mix::{spec, Action, Spec};
use settings::{settings, Settings};
use statements::insert;
use std::collections::BTreeMap;
use stream::SqlRun;

/// Every built-in PocketData SQL workload.
pub const NAMES: &[&str] = &[
    "pocketdata-a",
    "pocketdata-b",
    "pocketdata-c",
    "pocketdata-d",
    "pocketdata-e",
    "pocketdata-f",
    "pocketdata-ia",
    "pocketdata-ib",
    "pocketdata-ic",
];

/// A built-in PocketData workload by name; `Ok(None)` for any other name.
pub fn builtin(name: &str, o: &Overrides, seed: u64) -> Result<Option<Workload>> {
    let Some(spec) = spec(name) else {
        return Ok(None);
    };
    let s = settings(o)?;
    let first = s.records;
    let run = SqlRun::new(&spec, &s, seed);
    let info = WorkloadInfo {
        name: name.to_string(),
        source: "builtin".to_string(),
        model: DataModel::Sql,
        load_ops: 1 + s.records + s.indexes.len() as u64,
        run_ops: run.statements(),
        params: params(&spec, &s),
        recorded_delays: false,
        initial_delay_ns: 0,
    };
    let mut rng = Rng::derive(seed, "load");
    let values = spec.values;
    let load = std::iter::once(CREATE_TABLE.to_string())
        .chain((first..first + s.records).map(move |key| insert(key, values, &mut rng)))
        .chain(s.indexes)
        .map(|sql| Op::Sql { sql });
    Ok(Some(Workload {
        info,
        load: Box::new(load),
        run: Box::new(run),
    }))
}

/// Every parameter in effect, for the result's record.
fn params(spec: &Spec, s: &Settings) -> BTreeMap<String, String> {
    let mix = [
        ("read", Action::Read),
        ("update", Action::Update),
        ("insert", Action::Insert),
        ("scan", Action::Scan),
        ("readmodifywrite", Action::ReadModifyWrite),
        ("intequality", Action::IntEquality),
        ("floatrange1", Action::FloatRange(1)),
        ("floatrange2", Action::FloatRange(2)),
        ("increment", Action::Increment),
    ];
    let shares: Vec<String> = mix
        .iter()
        .map(|&(n, a)| (n, spec.mix.share(a)))
        .filter(|&(_, share)| share > 0.0)
        .map(|(n, share)| format!("{n}={share:.4}"))
        .collect();
    let columns: Vec<&str> = s
        .indexes
        .iter()
        .filter_map(|stmt| stmt.rsplit('(').next()?.strip_suffix(')'))
        .collect();
    let (lo, hi) = spec.scan_lengths;
    [
        ("table", "YCSBDATA".to_string()),
        ("records", s.records.to_string()),
        ("firstkey", s.records.to_string()),
        ("operations", s.ops.to_string()),
        ("mix", shares.join(",")),
        ("requestdistribution", spec.distribution.name().to_string()),
        ("scanlength", format!("{lo}..={hi}")),
        ("values", spec.values.name().to_string()),
        ("missratio", s.miss_ratio.to_string()),
        ("indexes", columns.join(",")),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

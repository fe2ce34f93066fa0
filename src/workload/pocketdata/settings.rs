//! The command-line overrides a PocketData workload honours (`--records`, `--ops`,
//! `--miss-ratio`, `--index`), checked into [`Settings`]; every other override is refused.

use super::statements::COLUMNS;
use crate::error::{Error, Result};
use crate::workload::overrides::{self as flag, reject_overrides};
use crate::workload::ycsb::{at_least_one, DEFAULT_OPS, DEFAULT_RECORDS};
use crate::workload::Overrides;

/// The overrides a PocketData workload honours, checked.
pub(super) struct Settings {
    pub(super) records: u64,
    pub(super) ops: u64,
    pub(super) miss_ratio: f64,
    /// `CREATE INDEX` statements, one per distinct column asked for.
    pub(super) indexes: Vec<String>,
}

/// The overrides `o`, checked; one this workload cannot honour is refused by its flag.
pub(super) fn settings(o: &Overrides) -> Result<Settings> {
    let allowed = [flag::RECORDS, flag::OPS, flag::MISS_RATIO, flag::INDEX];
    reject_overrides(
        o,
        &allowed,
        "the PocketData SQL workloads (fixed schema and mix)",
    )?;
    let records = at_least_one(flag::RECORDS, o.records)?.unwrap_or(DEFAULT_RECORDS);
    let miss_ratio = o.miss_ratio.unwrap_or(0.0);
    if !(0.0..=1.0).contains(&miss_ratio) {
        return Err(Error::input(format!(
            "{}: must be between 0 and 1, got {miss_ratio}",
            flag::MISS_RATIO
        )));
    }
    Ok(Settings {
        records,
        ops: o.ops.unwrap_or(DEFAULT_OPS),
        miss_ratio,
        indexes: index_statements(&o.indexes)?,
    })
}

/// `CREATE INDEX` for each named column (case-insensitive, duplicates dropped).
fn index_statements(columns: &[String]) -> Result<Vec<String>> {
    let mut canonical: Vec<&str> = Vec::new();
    for asked in columns {
        let name = std::iter::once("key")
            .chain(COLUMNS)
            .find(|c| c.eq_ignore_ascii_case(asked.trim()))
            .ok_or_else(|| {
                Error::input(format!(
                    "{}: YCSBDATA has no column \"{asked}\" (columns: key, {})",
                    flag::INDEX,
                    COLUMNS.join(", ")
                ))
            })?;
        if !canonical.contains(&name) {
            canonical.push(name);
        }
    }
    Ok(canonical
        .into_iter()
        .map(|c| format!("CREATE INDEX IDX_YCSBDATA_{c} ON YCSBDATA({c})"))
        .collect())
}

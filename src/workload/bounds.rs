//! The workload's sizes against the documented limits (`crate::limits`): a record layout,
//! what a trace header or resolved workload says about itself, and the disk space a trace and
//! a loaded database will take (estimated before anything is written).

use super::model::{DataModel, KeyValueModel};
use super::WorkloadInfo;
use crate::error::{Error, Result};
use crate::limits::{
    at_most, escape, MAX_FIELD_COUNT, MAX_FIELD_LENGTH, MAX_OPS, MAX_RECORDS, MAX_RECORD_BYTES,
};

/// Check a record layout: at least one field, every size within its limit. `names` gives
/// the names of the field count and field length where they came from.
pub fn check_model(m: &KeyValueModel, origin: &str, names: [&str; 2]) -> Result<()> {
    let [count, length] = names;
    let at = |what: &str| format!("{origin}{what}");
    if m.field_count == 0 {
        return Err(Error::input(format!("{}: must be at least 1", at(count))));
    }
    at_most(&at(count), m.field_count, MAX_FIELD_COUNT)?;
    at_most(&at(length), m.field_length, MAX_FIELD_LENGTH)?;
    let bytes = u64::from(m.field_count) * u64::from(m.field_length);
    if bytes > MAX_RECORD_BYTES {
        return Err(Error::input(format!(
            "{}: {} fields of {} bytes make a {bytes}-byte record, above the limit of {MAX_RECORD_BYTES} (see docs/limits.md)",
            at(count),
            m.field_count,
            m.field_length
        )));
    }
    if m.table.is_empty()
        || !m
            .table
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_')
    {
        return Err(Error::input(format!(
            "{}: table name {} must be letters, digits and '_'",
            at("table"),
            escape(&m.table)
        )));
    }
    Ok(())
}

/// Check what a trace header (or a resolved workload) says about itself. `origin` names the
/// file and ends with ": " (or is empty).
pub fn check_info(info: &WorkloadInfo, origin: &str) -> Result<()> {
    at_most(&format!("{origin}load_ops"), info.load_ops, MAX_RECORDS)?;
    at_most(&format!("{origin}run_ops"), info.run_ops, MAX_OPS)?;
    if let DataModel::KeyValue(m) = &info.model {
        check_model(m, origin, ["field_count", "field_length"])?;
    }
    Ok(())
}

/// Bytes a trace of `info` will take on disk, over-estimated: key-value records carry 8 bytes
/// of value seed plus framing; SQL statements are counted at 512 bytes each (the generated
/// ones are a few hundred).
pub fn trace_bytes_estimate(info: &WorkloadInfo) -> u64 {
    let per_op = match info.model {
        DataModel::KeyValue(_) => 24,
        DataModel::Sql => 16 + 512,
    };
    (info.load_ops.saturating_add(info.run_ops))
        .saturating_mul(per_op)
        .saturating_add(1 << 20)
}

/// Bytes the loaded database will take, over-estimated by half for indexes and pages.
pub fn database_bytes_estimate(info: &WorkloadInfo) -> u64 {
    match &info.model {
        DataModel::KeyValue(m) => {
            let record = u64::from(m.field_count) * u64::from(m.field_length) + 64;
            info.load_ops.saturating_mul(record).saturating_mul(3) / 2
        }
        DataModel::Sql => info.load_ops.saturating_mul(256),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_layout_limits() {
        let m = KeyValueModel::default();
        assert!(check_model(&m, "", ["fc", "fl"]).is_ok());
        let wide = KeyValueModel {
            field_count: 1000,
            field_length: 1 << 20,
            ..m.clone()
        };
        let e = check_model(&wide, "x: ", ["fc", "fl"])
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x: fc: 1000 fields of 1048576 bytes"), "{e}");
        let none = KeyValueModel {
            field_count: 0,
            ..m.clone()
        };
        assert_eq!(
            check_model(&none, "", ["fieldcount", "fl"])
                .unwrap_err()
                .to_string(),
            "fieldcount: must be at least 1"
        );
        let bad_table = KeyValueModel {
            table: "t; DROP".into(),
            ..m
        };
        assert!(check_model(&bad_table, "", ["a", "b"]).is_err());
    }
}

//! The operations a workload is made of, independent of any engine.
//!
//! Key-value operations carry key *numbers* and value *seeds*, not bytes: the key text and the
//! field values are derived from them when the operation is replayed (see
//! [`crate::workload::model`] and [`crate::workload::values`]), which keeps traces compact.
//! SQL operations carry their statement text verbatim.

use serde::Serialize;

/// One operation of a workload (load phase or run phase).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Read every field of one record.
    Read { key: u64 },
    /// Read `len` records in key order starting at `key`.
    Scan { key: u64, len: u32 },
    /// Overwrite one field (`Some(i)`) or every field (`None`) with values from `seed`.
    Update {
        key: u64,
        field: Option<u16>,
        seed: u64,
    },
    /// Insert a new record whose fields come from `seed`.
    Insert { key: u64, seed: u64 },
    /// Read the record, then overwrite one field or every field (YCSB workload F).
    ReadModifyWrite {
        key: u64,
        field: Option<u16>,
        seed: u64,
    },
    /// A SQL statement, executed as written.
    Sql { sql: String },
}

/// What kind of operation a sample was; the unit latency is reported per.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Read,
    Scan,
    Update,
    Insert,
    ReadModifyWrite,
    /// SQL statements are classified by their leading keyword.
    Select,
    Delete,
    /// DDL, transactions and anything else.
    Other,
}

impl OpKind {
    pub const ALL: [OpKind; 8] = [
        OpKind::Read,
        OpKind::Scan,
        OpKind::Update,
        OpKind::Insert,
        OpKind::ReadModifyWrite,
        OpKind::Select,
        OpKind::Delete,
        OpKind::Other,
    ];

    pub fn name(self) -> &'static str {
        match self {
            OpKind::Read => "read",
            OpKind::Scan => "scan",
            OpKind::Update => "update",
            OpKind::Insert => "insert",
            OpKind::ReadModifyWrite => "readmodifywrite",
            OpKind::Select => "select",
            OpKind::Delete => "delete",
            OpKind::Other => "other",
        }
    }

    pub fn code(self) -> u8 {
        self as u8
    }

    pub fn from_code(code: u8) -> Option<OpKind> {
        OpKind::ALL.get(usize::from(code)).copied()
    }

    pub fn from_name(name: &str) -> Option<OpKind> {
        OpKind::ALL.iter().copied().find(|k| k.name() == name)
    }

    /// Classify a SQL statement by its first keyword.
    pub fn of_sql(sql: &str) -> OpKind {
        let word = sql
            .trim_start()
            .split(|c: char| !c.is_ascii_alphabetic())
            .next()
            .unwrap_or("");
        if word.eq_ignore_ascii_case("select") || word.eq_ignore_ascii_case("with") {
            OpKind::Select
        } else if word.eq_ignore_ascii_case("update") {
            OpKind::Update
        } else if word.eq_ignore_ascii_case("insert") || word.eq_ignore_ascii_case("replace") {
            OpKind::Insert
        } else if word.eq_ignore_ascii_case("delete") {
            OpKind::Delete
        } else {
            OpKind::Other
        }
    }
}

impl Op {
    pub fn kind(&self) -> OpKind {
        match self {
            Op::Read { .. } => OpKind::Read,
            Op::Scan { .. } => OpKind::Scan,
            Op::Update { .. } => OpKind::Update,
            Op::Insert { .. } => OpKind::Insert,
            Op::ReadModifyWrite { .. } => OpKind::ReadModifyWrite,
            Op::Sql { sql } => OpKind::of_sql(sql),
        }
    }

    /// The key number a key-value operation targets (0 for SQL).
    pub fn key(&self) -> u64 {
        match self {
            Op::Read { key }
            | Op::Scan { key, .. }
            | Op::Update { key, .. }
            | Op::Insert { key, .. }
            | Op::ReadModifyWrite { key, .. } => *key,
            Op::Sql { .. } => 0,
        }
    }
}

/// One operation of the run phase with the delay that follows it (think pacing) or precedes
/// the next arrival (open pacing), in nanoseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedOp {
    pub op: Op,
    pub delay_ns: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sql_is_classified_by_leading_keyword() {
        assert_eq!(OpKind::of_sql("  select * from t"), OpKind::Select);
        assert_eq!(OpKind::of_sql("UPDATE t SET a=1"), OpKind::Update);
        assert_eq!(OpKind::of_sql("INSERT INTO t VALUES(1)"), OpKind::Insert);
        assert_eq!(OpKind::of_sql("DELETE FROM t"), OpKind::Delete);
        assert_eq!(OpKind::of_sql("CREATE TABLE t(a)"), OpKind::Other);
    }

    #[test]
    fn kind_codes_round_trip() {
        for k in OpKind::ALL {
            assert_eq!(OpKind::from_code(k.code()), Some(k));
            assert_eq!(OpKind::from_name(k.name()), Some(k));
        }
    }
}

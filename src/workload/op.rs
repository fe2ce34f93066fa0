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
    /// A SQL statement with typed values bound to its parameters, as an app prepares it once
    /// and binds it on every execution (trace format version 2).
    SqlArgs { sql: String, args: Vec<SqlValue> },
}

/// A value bound to a statement parameter, typed as SQLite types it.
#[derive(Clone, Debug)]
pub enum SqlValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    Blob(Vec<u8>),
}

impl PartialEq for SqlValue {
    /// Reals compare by their bits, so a trace's values compare equal to themselves (NaN too).
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (SqlValue::Null, SqlValue::Null) => true,
            (SqlValue::Integer(a), SqlValue::Integer(b)) => a == b,
            (SqlValue::Real(a), SqlValue::Real(b)) => a.to_bits() == b.to_bits(),
            (SqlValue::Text(a), SqlValue::Text(b)) => a == b,
            (SqlValue::Blob(a), SqlValue::Blob(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for SqlValue {}

impl SqlValue {
    /// The value as a SQLite literal (`NULL`, `42`, `1.5`, `'it''s'`, `X'00ff'`): what
    /// `--args inline` writes in place of a parameter.
    pub fn literal(&self) -> String {
        match self {
            SqlValue::Null => "NULL".into(),
            SqlValue::Integer(v) => v.to_string(),
            SqlValue::Real(v) if v.is_finite() => {
                let s = format!("{v:?}");
                if s.contains(['.', 'e', 'E']) {
                    s
                } else {
                    format!("{s}.0")
                }
            }
            SqlValue::Real(v) if v.is_nan() => "NULL".into(),
            SqlValue::Real(v) if *v > 0.0 => "9e999".into(),
            SqlValue::Real(_) => "-9e999".into(),
            SqlValue::Text(t) => format!("'{}'", t.replace('\'', "''")),
            SqlValue::Blob(b) => {
                let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
                format!("X'{hex}'")
            }
        }
    }
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
            Op::Sql { sql } | Op::SqlArgs { sql, .. } => OpKind::of_sql(sql),
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
            Op::Sql { .. } | Op::SqlArgs { .. } => 0,
        }
    }
}

/// One operation of the run phase with the delay that follows it (think pacing) or precedes
/// the next arrival (open pacing), in nanoseconds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimedOp {
    pub op: Op,
    pub delay_ns: u64,
    /// Where the statement sat in the recorded activity (imported traces, version 2).
    pub recorded: Option<Recorded>,
}

/// A recorded statement's place in the app's activity: which connection ran it, when it
/// started (from the start of the recording, after `--speed`), and how long it took there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Recorded {
    /// Connection number, from 0, in order of first appearance.
    pub conn: u32,
    /// Start, in nanoseconds from the first recorded statement.
    pub offset_ns: u64,
    /// The statement's duration as the source measured it.
    pub dur_ns: Option<u64>,
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
    fn values_become_sqlite_literals() {
        assert_eq!(SqlValue::Null.literal(), "NULL");
        assert_eq!(SqlValue::Integer(-7).literal(), "-7");
        assert_eq!(SqlValue::Real(2.0).literal(), "2.0");
        assert_eq!(SqlValue::Real(1.5e300).literal(), "1.5e300");
        assert_eq!(SqlValue::Text("it's".into()).literal(), "'it''s'");
        assert_eq!(SqlValue::Blob(vec![0, 255]).literal(), "X'00ff'");
    }

    #[test]
    fn kind_codes_round_trip() {
        for k in OpKind::ALL {
            assert_eq!(OpKind::from_code(k.code()), Some(k));
            assert_eq!(OpKind::from_name(k.name()), Some(k));
        }
    }
}

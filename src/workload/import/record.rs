//! The statement log: one record per statement an app executed (or per schema object it had),
//! as pocketbench's `capture` writes it to JSON lines and as every import front end produces
//! it. The conversion rules to a trace read only this form. The JSON layout of each field is
//! documented in `docs/import.md`.

use serde::{Deserialize, Serialize};

/// Which moment of a statement a source's timestamp marks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Stamp {
    /// `t_ns` is when the statement started (capture, sqlite3 `.trace`).
    #[default]
    Start,
    /// `t_ns` is when the statement completed (logcat's `SQLiteTime` and slow-query lines are
    /// logged after the statement ran); the start is `t_ns - dur_ns`.
    End,
}

/// A value bound to a statement parameter, typed as SQLite types it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ArgValue {
    Null,
    Integer(i64),
    Real(f64),
    Text(String),
    /// Bytes, written in JSON as `{"blob": "<lowercase hex>"}`.
    Blob(BlobHex),
}

/// A blob argument in its JSON form: `{"blob": "00ff"}`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BlobHex {
    pub blob: String,
}

/// The longest statement duration an imported log may give (24 hours, docs/limits.md): a
/// longer one is a corrupt line, dropped and counted by whichever front end read it.
pub const MAX_DUR_NS: u64 = 86_400 * 1_000_000_000;

/// `ms` milliseconds in nanoseconds, saturating (a value past the limit is dropped later).
pub fn ms_to_ns(ms: u64) -> u64 {
    ms.saturating_mul(1_000_000)
}

/// One executed statement.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct StatementRecord {
    /// Time in nanoseconds on the source's clock (any epoch: only differences are used).
    pub t_ns: u64,
    /// Whether `t_ns` marks the start or the end of the statement.
    #[serde(default)]
    pub stamp: Stamp,
    /// How long the statement took as the source measured it, when it did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dur_ns: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pid: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tid: Option<u32>,
    /// The connection as the source names it (a handle address, a number); statements of one
    /// connection share it. Absent: the source does not say (the pid and tid stand in).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conn: Option<String>,
    /// The database file the connection has open, as the source names it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db: Option<String>,
    /// The statement as prepared (with `?` parameters where it had them).
    pub sql: String,
    /// The statement with its parameters replaced by literals, when the source gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expanded: Option<String>,
    /// The bound parameter values, in parameter order, when the source gives them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub args: Option<Vec<ArgValue>>,
    /// Rows the statement returned (queries) or changed, when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// SQLite's result code (0 is success), when the source says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<i32>,
}

/// One schema object a database held (a `sqlite_master` row), as pulled from a device or
/// logged by PhoneLab.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub db: Option<String>,
    /// `table`, `index`, `view` or `trigger`.
    #[serde(rename = "type")]
    pub kind: String,
    pub name: String,
    /// The CREATE statement.
    pub sql: String,
}

/// One line of the statement log: `{"statement": {...}}` or `{"schema": {...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LogRecord {
    Statement(StatementRecord),
    Schema(SchemaRecord),
}

/// A blob argument's hex as bytes; `None` when it is not hex. Each pair of characters is read
/// as `u8::from_str_radix(pair, 16)` reads it (a `+` before one digit included).
pub fn blob_bytes(hex: &str) -> Option<Vec<u8>> {
    if !hex.len().is_multiple_of(2) {
        return None;
    }
    hex.as_bytes().chunks_exact(2).map(hex_pair).collect()
}

/// Whether [`blob_bytes`] reads `hex` (without making the bytes).
pub fn is_blob_hex(hex: &str) -> bool {
    hex.len().is_multiple_of(2)
        && hex
            .as_bytes()
            .chunks_exact(2)
            .all(|p| hex_pair(p).is_some())
}

/// One byte of a blob's hex: its two characters.
fn hex_pair(pair: &[u8]) -> Option<u8> {
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    match (pair[0], digit(pair[0]), digit(pair[1])) {
        (_, Some(hi), Some(lo)) => Some(hi << 4 | lo),
        (b'+', None, Some(lo)) => Some(lo),
        _ => None,
    }
}

impl StatementRecord {
    /// When the statement started on the source's clock.
    pub fn start_ns(&self) -> u64 {
        match self.stamp {
            Stamp::Start => self.t_ns,
            Stamp::End => self.t_ns.saturating_sub(self.dur_ns.unwrap_or(0)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blob_hex_reads_as_from_str_radix_reads_each_pair() {
        let radix = |hex: &str| -> Option<Vec<u8>> {
            if !hex.len().is_multiple_of(2) {
                return None;
            }
            (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(hex.get(i..i + 2)?, 16).ok())
                .collect()
        };
        for hex in [
            "", "00ff", "0F", "+f", "++", "-f", "f+", "0g", "abc", "é0", "0é", "A1b2",
        ] {
            assert_eq!(blob_bytes(hex), radix(hex), "{hex}");
            assert_eq!(is_blob_hex(hex), radix(hex).is_some(), "{hex}");
        }
        assert_eq!(blob_bytes("+fA0"), Some(vec![15, 160]));
    }

    #[test]
    fn a_statement_line_round_trips_with_typed_arguments() {
        let line = r#"{"statement":{"t_ns":5,"stamp":"end","dur_ns":3,"conn":"0x1","sql":"INSERT INTO t VALUES(?,?,?,?,?)","args":[null,7,1.5,"x",{"blob":"00ff"}]}}"#;
        let rec: LogRecord = serde_json::from_str(line).unwrap();
        let LogRecord::Statement(s) = &rec else {
            panic!("not a statement")
        };
        assert_eq!(s.start_ns(), 2);
        assert_eq!(
            s.args.as_deref().unwrap(),
            [
                ArgValue::Null,
                ArgValue::Integer(7),
                ArgValue::Real(1.5),
                ArgValue::Text("x".into()),
                ArgValue::Blob(BlobHex {
                    blob: "00ff".into()
                })
            ]
        );
        assert_eq!(serde_json::to_string(&rec).unwrap(), line);
    }
}

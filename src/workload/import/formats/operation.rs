//! One message of Android's SQLite operation log (`SQLiteConnection`'s `OperationLog`), as the
//! `android-logcat` front end reads it from logcat (the slow-query log) and `dumpsys-dbinfo`
//! from a connection's recent operations:
//!
//! ```text
//! KIND took Nms - STATUS[, sql="SQL"][, tid=N][, bindArgs=[ARGS]][, path=PATH][, more]
//! ```
//!
//! Releases and wrappers print different subsets: Android 4.1–8 print no `path=` (the pool
//! names the database), wrappers of the framework class (WCDB, Couchbase Lite, requery) print
//! `tid=` after the SQL and `bindArgs=` when verbose, recent releases add `path=` and,
//! after it, `filledRows=`, `countedRows=`, `result=` or `exception="…"`. Fields are read by
//! name; fields this does not know are passed over.

use crate::workload::import::record::BlobHex;
use crate::workload::import::ArgValue;

/// One operation-log message, parsed.
#[derive(Debug, Default, PartialEq)]
pub struct Operation<'a> {
    pub kind: &'a str,
    pub ms: u64,
    pub failed: bool,
    pub sql: Option<&'a str>,
    pub tid: Option<u32>,
    pub args: Option<Vec<ArgValue>>,
    pub path: Option<&'a str>,
    pub rows: Option<u64>,
}

/// The fields that may follow the SQL: its closing quote is the first `"` followed by one.
const AFTER_SQL: &[&str] = &[
    "\", tid=",
    "\", bindArgs=[",
    "\", path=",
    "\", exception=\"",
    "\", result=",
    "\", filledRows=",
];

/// The fields that may follow the bound arguments: the list ends at the last `]` followed by
/// one (an argument's text may hold `]`), or at the message's last `]`.
const AFTER_ARGS: &[&str] = &[
    "], path=",
    "], exception=\"",
    "], result=",
    "], filledRows=",
];

/// `KIND took Nms - STATUS[, …]`, as the operation log and `dumpsys dbinfo` print it. `None`
/// when the message is not one (or was cut short).
pub fn parse_operation(msg: &str) -> Option<Operation<'_>> {
    let (kind, rest) = msg.split_once(" took ")?;
    if kind.is_empty() || !kind.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    let (ms, rest) = rest.split_once("ms - ")?;
    let ms: u64 = ms.trim().parse().ok()?;
    let (status, mut rest) = rest.split_once(", ").unwrap_or((rest, ""));
    let failed = match status {
        "succeeded" => false,
        "failed" => true,
        _ => return None,
    };
    let mut op = Operation {
        kind,
        ms,
        failed,
        ..Default::default()
    };
    if let Some(r) = rest.strip_prefix("sql=\"") {
        let end = AFTER_SQL
            .iter()
            .filter_map(|m| r.find(m))
            .min()
            .or_else(|| r.ends_with('"').then(|| r.len() - 1))?;
        op.sql = Some(&r[..end]);
        rest = r[end + 1..].strip_prefix(", ").unwrap_or("");
    }
    if let Some(r) = rest.strip_prefix("tid=") {
        let (tid, next) = r.split_once(", ").unwrap_or((r, ""));
        op.tid = Some(tid.parse().ok()?);
        rest = next;
    }
    if let Some(r) = rest.strip_prefix("bindArgs=[") {
        let end = AFTER_ARGS
            .iter()
            .filter_map(|m| r.rfind(m))
            .min()
            .or_else(|| r.ends_with(']').then(|| r.len() - 1))?;
        op.args = Some(parse_bind_args(&r[..end]));
        rest = r[end + 1..].strip_prefix(", ").unwrap_or("");
    }
    let more = match rest.strip_prefix("path=") {
        Some(r) => {
            let (path, more) = r.split_once(", ").unwrap_or((r, ""));
            op.path = Some(path);
            more
        }
        None => rest,
    };
    let field = |name: &str| {
        more.split(", ")
            .find_map(|f| f.strip_prefix(name)?.parse::<u64>().ok())
    };
    op.rows = match kind {
        "executeForCursorWindow" => field("countedRows="),
        "executeForChangedRowCount" => field("result="),
        _ => None,
    };
    Some(op)
}

/// `1, "x", null, <byte[]>, 2.5, true` as the operation log prints bound arguments (strings
/// unescaped: one ends at a `"` followed by `, ` or the end). A blob's bytes are not logged:
/// it reads as an empty blob.
pub fn parse_bind_args(s: &str) -> Vec<ArgValue> {
    let mut out = Vec::new();
    let mut rest = s;
    while !rest.is_empty() {
        let (item, next) = if let Some(r) = rest.strip_prefix('"') {
            match r.find("\", ") {
                Some(e) => (ArgValue::Text(r[..e].to_string()), &r[e + 3..]),
                None => (
                    ArgValue::Text(r.strip_suffix('"').unwrap_or(r).to_string()),
                    "",
                ),
            }
        } else {
            let (v, next) = rest.split_once(", ").unwrap_or((rest, ""));
            let value = match v {
                "null" => ArgValue::Null,
                "<byte[]>" => ArgValue::Blob(BlobHex {
                    blob: String::new(),
                }),
                "true" => ArgValue::Integer(1),
                "false" => ArgValue::Integer(0),
                _ => match (v.parse::<i64>(), v.parse::<f64>()) {
                    (Ok(i), _) => ArgValue::Integer(i),
                    (_, Ok(f)) => ArgValue::Real(f),
                    _ => ArgValue::Text(v.to_string()),
                },
            };
            (value, next)
        };
        out.push(item);
        rest = next;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_releases_fields_are_read_by_name() {
        let recent = r#"executeForChangedRowCount took 3ms - succeeded, sql="UPDATE t SET a=? WHERE b=?", bindArgs=[1, "x, y"], path=/data/app.db, result=2"#;
        let op = parse_operation(recent).unwrap();
        assert_eq!(
            (op.kind, op.ms, op.failed, op.path, op.rows),
            (
                "executeForChangedRowCount",
                3,
                false,
                Some("/data/app.db"),
                Some(2)
            )
        );
        assert_eq!(op.sql, Some("UPDATE t SET a=? WHERE b=?"));
        assert_eq!(
            op.args.unwrap(),
            [ArgValue::Integer(1), ArgValue::Text("x, y".into())]
        );

        // Android 4.1–8: no path; the SQL is the message's last field.
        let old = r#"execute took 0ms - succeeded, sql="COMMIT;""#;
        let op = parse_operation(old).unwrap();
        assert_eq!((op.sql, op.path, op.tid), (Some("COMMIT;"), None, None));

        // A wrapper's: tid after the SQL, arguments last, an exception.
        let wrapper = r#"executeForLastInsertedRowId took 12ms - failed, sql="INSERT INTO t VALUES(?, ?)", tid=4711, bindArgs=[<byte[]>, "a]b"], exception="UNIQUE constraint failed""#;
        let op = parse_operation(wrapper).unwrap();
        assert!(op.failed);
        assert_eq!((op.tid, op.path), (Some(4711), None));
        assert_eq!(
            op.args.unwrap(),
            [
                ArgValue::Blob(BlobHex {
                    blob: String::new()
                }),
                ArgValue::Text("a]b".into())
            ]
        );
        let tid_only = r#"prepare took 0ms - succeeded, sql="SELECT 1", tid=9"#;
        assert_eq!(parse_operation(tid_only).unwrap().tid, Some(9));
        let args_last =
            r#"executeForCursorWindow took 1ms - succeeded, sql="SELECT ?", bindArgs=[7]"#;
        assert_eq!(
            parse_operation(args_last).unwrap().args.unwrap(),
            [ArgValue::Integer(7)]
        );

        // Cut short (no closing quote), not an operation, a tid that is no number.
        for bad in [
            r#"execute took 0ms - succeeded, sql="SELECT 1"#,
            "execute took 0ms - finished",
            r#"execute took 0ms - succeeded, sql="SELECT 1", tid=x"#,
        ] {
            assert_eq!(parse_operation(bad), None, "{bad}");
        }
    }
}

//! The `jsonl` front end: pocketbench's own statement log, one JSON object per line
//! (`{"statement":{…}}` or `{"schema":{…}}`, field by field in `docs/import.md`), as `capture`
//! writes it. Blank lines and lines that do not start with `{` are someone else's output and
//! skipped; a line that starts with `{` but is not a record is dropped and counted.

use super::{LineOutcome, LogFormat};
use crate::limits::{MAX_SQL_ARGS, MAX_SQL_BYTES};
use crate::workload::import::record::{is_blob_hex, ArgValue, LogRecord};

#[derive(Default)]
pub struct Jsonl;

impl LogFormat for Jsonl {
    fn name(&self) -> &'static str {
        "jsonl"
    }

    fn feed(&mut self, line: &str, out: &mut Vec<LogRecord>) -> LineOutcome {
        let line = line.trim();
        if !line.starts_with('{') {
            return LineOutcome::Skipped;
        }
        // A capture's own line shape is read by hand (without the expanded text of a
        // statement with bound arguments where nothing reads it); any other by serde_json.
        let record = match super::jsonl_scan::statement_bound(line) {
            Some(s) => LogRecord::Statement(s),
            None => match serde_json::from_str::<LogRecord>(line) {
                Ok(r) => r,
                Err(_) => return LineOutcome::Dropped("not a statement log record"),
            },
        };
        if let LogRecord::Statement(s) = &record {
            if s.sql.len() as u64 > MAX_SQL_BYTES
                || s.expanded
                    .as_ref()
                    .is_some_and(|e| e.len() as u64 > MAX_SQL_BYTES)
            {
                return LineOutcome::Dropped("SQL above the size limit");
            }
            if s.args
                .as_ref()
                .is_some_and(|a| a.len() as u64 > MAX_SQL_ARGS)
            {
                return LineOutcome::Dropped("more arguments than the limit");
            }
            if s.args.iter().flatten().any(|a| match a {
                ArgValue::Blob(b) => !is_blob_hex(&b.blob),
                _ => false,
            }) {
                return LineOutcome::Dropped("blob argument is not hex");
            }
        }
        out.push(record);
        LineOutcome::Recognised
    }

    fn finish(&mut self, _out: &mut Vec<LogRecord>) {}
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_read_and_other_lines_counted() {
        let mut f = Jsonl;
        let mut out = Vec::new();
        let line = r#"{"statement":{"t_ns":1,"sql":"SELECT ?","args":[{"blob":"0F"}]}}"#;
        assert_eq!(f.feed(line, &mut out), LineOutcome::Recognised);
        assert_eq!(f.feed("", &mut out), LineOutcome::Skipped);
        assert_eq!(f.feed("hello", &mut out), LineOutcome::Skipped);
        assert_eq!(
            f.feed(r#"{"statement":{}}"#, &mut out),
            LineOutcome::Dropped("not a statement log record")
        );
        let bad_blob = r#"{"statement":{"t_ns":1,"sql":"SELECT ?","args":[{"blob":"0g"}]}}"#;
        assert_eq!(
            f.feed(bad_blob, &mut out),
            LineOutcome::Dropped("blob argument is not hex")
        );
        let schema = r#"{"schema":{"type":"table","name":"t","sql":"CREATE TABLE t(a)"}}"#;
        assert_eq!(f.feed(schema, &mut out), LineOutcome::Recognised);
        assert_eq!(out.len(), 2);
    }
}

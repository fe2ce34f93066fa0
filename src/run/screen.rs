//! Untrusted SQL on the JVM engines. The native SQL engines refuse a workload's dangerous
//! statements one by one as SQLite prepares them (`engine::sqlite::guard`); the JVM driver
//! runs statements itself, where pocketbench has no authorizer. So before a JVM engine is
//! given a trace, every statement of it is read here, and a trace holding one that could touch
//! a file outside the run's folder or run code is refused whole (exit 2, naming the statement):
//! SQLite's `ATTACH`, `VACUUM INTO`, `load_extension`, the file-naming PRAGMAs and
//! `writable_schema` (sqlite-jdbc), and H2's file and code features (`CREATE ALIAS`,
//! `CREATE TRIGGER` (a Java class), `CREATE LINKED TABLE`, `LINK_SCHEMA`, `SCRIPT`,
//! `RUNSCRIPT`, `BACKUP`, `CSVREAD`, `CSVWRITE`, `FILE_READ`, `FILE_WRITE`). The words are
//! found outside string literals and comments, in any case; a column that happens to be named
//! like one of them is refused too, and the message says which word.

use crate::error::{Error, Result};
use crate::workload::op::Op;
use crate::workload::trace::{TraceItem, TraceReader};
use std::path::Path;

/// Words that refuse a statement wherever they appear.
const ANYWHERE: [&str; 13] = [
    "LOAD_EXTENSION",
    "FTS3_TOKENIZER",
    "WRITABLE_SCHEMA",
    "TEMP_STORE_DIRECTORY",
    "DATA_STORE_DIRECTORY",
    "LINK_SCHEMA",
    "RUNSCRIPT",
    "CSVREAD",
    "CSVWRITE",
    "FILE_READ",
    "FILE_WRITE",
    "ALIAS",
    "LINKED",
];

/// Words that refuse a statement when it starts with them.
const LEADING: [&str; 4] = ["ATTACH", "SCRIPT", "BACKUP", "CALL"];

/// The identifier-like words of `sql`, upper-cased, outside string literals and comments.
fn words(sql: &str) -> Vec<String> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\'' => {
                i += 1;
                while i < b.len() {
                    if b[i] == b'\'' {
                        if b.get(i + 1) == Some(&b'\'') {
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    i += 1;
                }
                i += 1;
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                while i < b.len() && b[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < b.len() && !(b[i] == b'*' && b.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let start = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                out.push(sql[start..i].to_ascii_uppercase());
            }
            _ => i += 1,
        }
    }
    out
}

/// Why `sql` may not run on a JVM engine, if it may not.
pub fn refusal(sql: &str) -> Option<String> {
    let w = words(sql);
    let first = w.first().map(String::as_str).unwrap_or("");
    if LEADING.contains(&first) {
        return Some(format!("a statement starting with {first}"));
    }
    if first == "VACUUM" && w.iter().any(|x| x == "INTO") {
        return Some("VACUUM INTO".into());
    }
    if first == "CREATE" && w.iter().take(4).any(|x| x == "TRIGGER") {
        return Some("CREATE TRIGGER (on H2 a trigger is a Java class)".into());
    }
    w.iter()
        .find(|x| ANYWHERE.contains(&x.as_str()))
        .map(|x| format!("the word {x}"))
}

/// Read every statement of the trace at `path` and refuse the trace at the first one a JVM
/// engine may not run.
pub fn check_trace(path: &Path, engine: &str) -> Result<()> {
    let mut reader = TraceReader::open(path)?;
    let mut n = 0u64;
    while let Some(item) = reader.next_item()? {
        let op = match &item {
            TraceItem::Load(op) => op,
            TraceItem::Run(t) => &t.op,
        };
        let sql = match op {
            Op::Sql { sql } | Op::SqlArgs { sql, .. } => sql,
            _ => {
                n += 1;
                continue;
            }
        };
        if let Some(why) = refusal(sql) {
            return Err(Error::input(format!(
                "{}: operation {n} ({}): {why} cannot run on {engine}: a workload may not touch \
                 files outside its run or run code, and the JVM engines have no per-statement \
                 guard (the native SQL engines refuse such statements one by one)",
                path.display(),
                crate::limits::escape(&sql.chars().take(80).collect::<String>())
            )));
        }
        n += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dangerous_statements_are_found_outside_literals_and_comments() {
        for bad in [
            "ATTACH DATABASE '/tmp/x' AS e",
            "attach '/tmp/x' as e",
            "VACUUM INTO '/tmp/copy.db'",
            "SELECT load_extension('x.so')",
            "PRAGMA writable_schema = 1",
            "CREATE ALIAS REVERSE AS 'String r(String s) { return s; }'",
            "SELECT * FROM CSVREAD('/etc/passwd')",
            "CALL CSVWRITE('/tmp/x.csv', 'SELECT 1')",
            "SCRIPT TO '/tmp/dump.sql'",
            "RUNSCRIPT FROM '/tmp/x.sql'",
            "CREATE TRIGGER t1 BEFORE INSERT ON t FOR EACH ROW CALL \"org.Evil\"",
            "CREATE LINKED TABLE l('org.h2.Driver', 'jdbc:h2:/tmp/x', '', '', 't')",
        ] {
            assert!(refusal(bad).is_some(), "{bad}");
        }
        for fine in [
            "SELECT 'ATTACH DATABASE x' FROM t",
            "INSERT INTO notes VALUES (1, 'load_extension is a word')",
            "-- VACUUM INTO 'x'\nSELECT 1",
            "/* CSVWRITE */ UPDATE t SET a = 1",
            "VACUUM",
            "PRAGMA journal_mode = wal",
            "SELECT * FROM usertable WHERE YCSB_KEY = ?",
        ] {
            assert_eq!(refusal(fine), None, "{fine}");
        }
    }
}

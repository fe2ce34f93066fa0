//! What the conversion needs to know of a statement's text, without a SQL parser: its
//! parameters (to write arguments as literals), a connection-setup PRAGMA's setting, the
//! object a CREATE makes, and a transaction statement's effect on nesting. String literals,
//! quoted identifiers and comments are skipped as SQLite's tokenizer skips them.

use crate::workload::op::SqlValue;

/// The statement with every parameter (`?`, `?NNN`, `:name`, `@name`, `$name`) replaced by
/// its argument as a SQLite literal; `None` when an argument is missing. Named parameters get
/// numbers in order of first appearance, as SQLite gives them.
pub fn inline_args(sql: &str, args: &[SqlValue]) -> Option<String> {
    let b = sql.as_bytes();
    let mut out = String::with_capacity(sql.len() + 16 * args.len());
    let mut names: Vec<(&str, usize)> = Vec::new();
    let (mut i, mut copied, mut next) = (0usize, 0usize, 0usize);
    while i < b.len() {
        match b[i] {
            q @ (b'\'' | b'"' | b'`') => i = skip_quoted(b, i, q),
            b'[' => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b']')
                    .map_or(b.len(), |p| i + p + 1)
            }
            b'-' if b.get(i + 1) == Some(&b'-') => {
                i = b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |p| i + p)
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = sql[i + 2..].find("*/").map_or(b.len(), |p| i + p + 4)
            }
            c @ (b'?' | b':' | b'@' | b'$') => {
                let start = i;
                i += 1;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                    i += 1;
                }
                let word = &sql[start + 1..i];
                let index = if c == b'?' {
                    if word.is_empty() {
                        next += 1;
                        next
                    } else {
                        let n: usize = word.parse().ok()?;
                        next = next.max(n);
                        n
                    }
                } else if word.is_empty() {
                    continue;
                } else {
                    let name = &sql[start..i];
                    match names.iter().find(|(n, _)| *n == name) {
                        Some((_, k)) => *k,
                        None => {
                            next += 1;
                            names.push((name, next));
                            next
                        }
                    }
                };
                out.push_str(&sql[copied..start]);
                out.push_str(&args.get(index.checked_sub(1)?)?.literal());
                copied = i;
            }
            _ => i += 1,
        }
    }
    out.push_str(&sql[copied..]);
    Some(out)
}

fn skip_quoted(b: &[u8], start: usize, q: u8) -> usize {
    let mut i = start + 1;
    while i < b.len() {
        if b[i] == q {
            if b.get(i + 1) == Some(&q) {
                i += 2;
                continue;
            }
            return i + 1;
        }
        i += 1;
    }
    b.len()
}

/// The statement's words, upper-cased, up to `n` of them (identifiers unquoted).
fn words(sql: &str, n: usize) -> Vec<String> {
    sql.split(|c: char| c.is_whitespace() || c == '(' || c == ';' || c == '=')
        .filter(|w| !w.is_empty())
        .take(n)
        .map(|w| w.trim_matches(['"', '`', '[', ']', '\'']).to_string())
        .collect()
}

/// `PRAGMA [schema.]name = value` or `PRAGMA name(value)`: the setting, name and value
/// lower-cased; `None` for a PRAGMA that only reads.
pub fn pragma_setting(sql: &str) -> Option<(String, String)> {
    let t = sql.trim().trim_end_matches(';').trim();
    if !t.get(..6)?.eq_ignore_ascii_case("pragma") {
        return None;
    }
    let rest = t[6..].trim();
    let (name, value) = match rest.find(['=', '(']) {
        Some(p) => (&rest[..p], rest[p + 1..].trim_end_matches(')')),
        None => return None,
    };
    let name = name.trim().rsplit('.').next()?.trim().to_ascii_lowercase();
    let value = value.trim().trim_matches(['\'', '"']).to_ascii_lowercase();
    (!name.is_empty() && !value.is_empty()).then_some((name, value))
}

/// The object a `CREATE [TEMP] TABLE|INDEX|VIEW|TRIGGER [IF NOT EXISTS] name` makes, as
/// (kind, lower-case name without schema).
pub fn created_object(sql: &str) -> Option<(String, String)> {
    let w = words(sql, 9);
    let up: Vec<String> = w.iter().map(|x| x.to_ascii_uppercase()).collect();
    if up.first()? != "CREATE" {
        return None;
    }
    let mut i = 1;
    while matches!(
        up.get(i).map(String::as_str),
        Some("TEMP" | "TEMPORARY" | "UNIQUE" | "VIRTUAL")
    ) {
        i += 1;
    }
    let kind = up.get(i)?.to_ascii_lowercase();
    if !matches!(kind.as_str(), "table" | "index" | "view" | "trigger") {
        return None;
    }
    i += 1;
    if up.get(i).map(String::as_str) == Some("IF") {
        i += 3;
    }
    let name = w
        .get(i)?
        .rsplit('.')
        .next()?
        .trim_matches(['"', '`', '[', ']']);
    Some((kind, name.to_ascii_lowercase()))
}

/// What a statement does to a connection's transaction nesting.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TxnStep {
    Begin,
    Commit,
    Rollback,
    Savepoint(String),
    Release(String),
    RollbackTo(String),
    None,
}

pub fn txn_step(sql: &str) -> TxnStep {
    let w = words(sql, 4);
    let up: Vec<String> = w.iter().map(|x| x.to_ascii_uppercase()).collect();
    let name = |i: usize| {
        let i = if up.get(i).map(String::as_str) == Some("SAVEPOINT") {
            i + 1
        } else {
            i
        };
        w.get(i).map(|n| n.to_ascii_lowercase()).unwrap_or_default()
    };
    match up.first().map(String::as_str) {
        Some("BEGIN") => TxnStep::Begin,
        Some("COMMIT" | "END") => TxnStep::Commit,
        Some("ROLLBACK") if up.iter().any(|x| x == "TO") => {
            let at = up.iter().position(|x| x == "TO").unwrap_or(0);
            TxnStep::RollbackTo(name(at + 1))
        }
        Some("ROLLBACK") => TxnStep::Rollback,
        Some("SAVEPOINT") => TxnStep::Savepoint(name(1)),
        Some("RELEASE") => TxnStep::Release(name(1)),
        _ => TxnStep::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_literals_outside_strings_and_comments() {
        let a = [SqlValue::Integer(1), SqlValue::Text("x'y".into())];
        assert_eq!(
            inline_args("SELECT '?', ? -- ?\n, ?", &a).unwrap(),
            "SELECT '?', 1 -- ?\n, 'x''y'"
        );
        assert_eq!(
            inline_args("UPDATE t SET a=:v WHERE b=?1 AND c=:v", &a[..1]).unwrap(),
            "UPDATE t SET a=1 WHERE b=1 AND c=1"
        );
        assert_eq!(inline_args("SELECT ?, ?", &a[..1]), None);
        assert_eq!(
            inline_args("SELECT \"a?\" FROM t", &[]).unwrap(),
            "SELECT \"a?\" FROM t"
        );
    }

    #[test]
    fn settings_objects_and_transaction_steps() {
        assert_eq!(
            pragma_setting("PRAGMA main.journal_mode = 'WAL';"),
            Some(("journal_mode".into(), "wal".into()))
        );
        assert_eq!(
            pragma_setting("pragma synchronous(1)"),
            Some(("synchronous".into(), "1".into()))
        );
        assert_eq!(pragma_setting("PRAGMA user_version"), None);
        assert_eq!(
            created_object("CREATE UNIQUE INDEX IF NOT EXISTS main.\"Ix\" ON t(a)"),
            Some(("index".into(), "ix".into()))
        );
        assert_eq!(
            created_object("CREATE TABLE t(a)"),
            Some(("table".into(), "t".into()))
        );
        assert_eq!(created_object("SELECT 1"), None);
        assert_eq!(txn_step("BEGIN IMMEDIATE"), TxnStep::Begin);
        assert_eq!(txn_step("end transaction"), TxnStep::Commit);
        assert_eq!(
            txn_step("ROLLBACK TO SAVEPOINT s1"),
            TxnStep::RollbackTo("s1".into())
        );
        assert_eq!(txn_step("ROLLBACK"), TxnStep::Rollback);
        assert_eq!(txn_step("SAVEPOINT s1"), TxnStep::Savepoint("s1".into()));
        assert_eq!(
            txn_step("RELEASE SAVEPOINT s1"),
            TxnStep::Release("s1".into())
        );
    }
}

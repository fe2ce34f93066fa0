//! What the conversion needs to know of a statement's text, without a SQL parser: its
//! parameters (to write arguments as literals), a connection-setup PRAGMA's setting, the
//! object a CREATE makes, and a transaction statement's effect on nesting. Read through
//! [`super::lexer`], so string literals, quoted identifiers and comments are told apart as
//! SQLite's tokenizer tells them.

use super::lexer::{is_word_byte, tokens, Kind, ParamNumbers};
use crate::workload::op::SqlValue;

/// The statement with every parameter (`?`, `?NNN`, `:name`, `@name`, `$name`) replaced by
/// its argument as a SQLite literal; `None` when an argument is missing. Named parameters get
/// numbers in order of first appearance, as SQLite gives them.
pub fn inline_args(sql: &str, args: &[SqlValue]) -> Option<String> {
    let mut out = String::with_capacity(sql.len() + 16 * args.len());
    let mut numbers = ParamNumbers::default();
    for t in tokens(sql) {
        if t.kind != Kind::Param {
            out.push_str(t.text);
            continue;
        }
        let n = numbers.number(t.text, args.len())?;
        out.push_str(&args.get(n.checked_sub(1)?)?.literal());
    }
    Some(out)
}

/// The statement's words (bare words, quoted identifiers unquoted, literals), up to `n` of
/// them; a qualified name (`main."Ix"`) is one word, its parts joined by `.`.
fn words(sql: &str, n: usize) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut dot = false;
    for t in tokens(sql) {
        let word = match t.kind {
            Kind::Word | Kind::Number => t.text.to_string(),
            Kind::QuotedIdent | Kind::Str if t.text.len() >= 2 && !t.open => {
                let q = &t.text[..1];
                let close = if q == "[" { "]" } else { q };
                t.text[1..t.text.len() - 1].replace(&format!("{close}{close}"), close)
            }
            Kind::Punct if t.text == "." => {
                dot = !out.is_empty();
                continue;
            }
            Kind::Space | Kind::Comment => continue,
            _ => {
                dot = false;
                continue;
            }
        };
        match out.last_mut() {
            Some(last) if dot => {
                last.push('.');
                last.push_str(&word);
            }
            _ => {
                if out.len() >= n {
                    break;
                }
                out.push(word);
            }
        }
        dot = false;
    }
    out
}

/// Whether the first of the statement's [`words`] can be one of `keywords` (upper case): a
/// cheap test before `words` itself, which copies every word it keeps. The first word is read
/// from the first token `words` keeps; a qualified name joined after it has a `.`, so it is
/// no keyword either.
fn first_word_in(sql: &str, keywords: &[&str]) -> bool {
    // A text that starts with a letter starts with its first word (but for `X'…'`, a blob):
    // the run of word bytes from there, as the lexer reads a bare word, answered without it.
    let b = sql.as_bytes();
    if let Some(&c) = b.first() {
        if c.is_ascii_alphabetic() && !(c.eq_ignore_ascii_case(&b'x') && b.get(1) == Some(&b'\'')) {
            let n = b.iter().take_while(|&&x| is_word_byte(x)).count();
            return keywords
                .iter()
                .any(|k| b[..n].eq_ignore_ascii_case(k.as_bytes()));
        }
    }
    let Some(t) = tokens(sql).find(|t| match t.kind {
        Kind::Word | Kind::Number => true,
        Kind::QuotedIdent | Kind::Str => t.text.len() >= 2 && !t.open,
        _ => false,
    }) else {
        return false;
    };
    let quoted = matches!(t.kind, Kind::QuotedIdent | Kind::Str);
    let w = if quoted {
        &t.text[1..t.text.len() - 1]
    } else {
        t.text
    };
    // A quoted word with doubled quotes inside is none of the keywords.
    keywords.iter().any(|k| w.eq_ignore_ascii_case(k))
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
    if !first_word_in(sql, &["CREATE"]) {
        return None;
    }
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
    let name = w.get(i)?.rsplit('.').next()?;
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
    const STEPS: [&str; 6] = ["BEGIN", "COMMIT", "END", "ROLLBACK", "SAVEPOINT", "RELEASE"];
    if !first_word_in(sql, &STEPS) {
        return TxnStep::None;
    }
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

/// Whether a statement takes the database's write lock: it changes rows or the schema
/// (`INSERT`, `UPDATE`, `DELETE`, `REPLACE`, DDL, `ANALYZE`, `VACUUM`, a `WITH` before one of
/// those, a `PRAGMA` that sets a value) or is `BEGIN IMMEDIATE`/`EXCLUSIVE`. Read from the
/// statement's words, not a parse: a statement it cannot place counts as a write, which only
/// orders the replay more strictly.
pub fn takes_write_lock(sql: &str) -> bool {
    let w = words(sql, 2);
    let up = |i: usize| w.get(i).map(|x| x.to_ascii_uppercase());
    match up(0).as_deref() {
        Some("SELECT" | "VALUES" | "EXPLAIN" | "COMMIT" | "END" | "ROLLBACK" | "SAVEPOINT")
        | Some("RELEASE") => false,
        Some("BEGIN") => matches!(up(1).as_deref(), Some("IMMEDIATE" | "EXCLUSIVE")),
        Some("PRAGMA") => pragma_setting(sql).is_some(),
        Some("WITH") => words(sql, usize::MAX).iter().any(|x| {
            ["INSERT", "UPDATE", "DELETE", "REPLACE"]
                .iter()
                .any(|k| x.eq_ignore_ascii_case(k))
        }),
        _ => true,
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
        // `$` inside a word is part of it (as SQLite reads it); at a word's start, a parameter.
        assert_eq!(
            inline_args("SELECT a$b, $c FROM t", &a[..1]).unwrap(),
            "SELECT a$b, 1 FROM t"
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
        assert_eq!(
            created_object("CREATE TABLE \"main\".\"my \"\"t\"\"\"(a)"),
            Some(("table".into(), "my \"t\"".into()))
        );
        assert!(takes_write_lock("insert into t values (1)"));
        assert!(takes_write_lock("BEGIN EXCLUSIVE TRANSACTION"));
        assert!(takes_write_lock("WITH x AS (SELECT 1) DELETE FROM t"));
        assert!(takes_write_lock("CREATE INDEX i ON t(a)"));
        assert!(!takes_write_lock("BEGIN"));
        assert!(!takes_write_lock("WITH x AS (SELECT 1) SELECT * FROM x"));
        assert!(!takes_write_lock("  select 'insert' from t"));
        assert!(!takes_write_lock("PRAGMA user_version"));
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

    #[test]
    fn the_first_word_is_found_past_comments_quotes_and_a_blob_and_in_any_case() {
        assert!(first_word_in("create table t(a)", &["CREATE"]));
        assert!(first_word_in("Commit", &["BEGIN", "COMMIT"]));
        assert!(!first_word_in("INSERT INTO t VALUES(1)", &["CREATE"]));
        assert!(!first_word_in("CREATED", &["CREATE"]));
        assert!(first_word_in(
            "-- a note\n  /* x */ CREATE TABLE t(a)",
            &["CREATE"]
        ));
        assert!(first_word_in("\"create\" TABLE t(a)", &["CREATE"]));
        // `X'…'` is a blob, not a word: the first word follows it.
        assert!(first_word_in("X'00' BEGIN", &["BEGIN"]));
        assert!(!first_word_in("Xcreate", &["CREATE"]));
    }
}

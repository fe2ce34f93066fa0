//! Anonymising a statement log (`--anonymize literals[,integers,identifiers,paths] --salt S`):
//! every value is replaced by a keyed function of itself (HMAC-SHA-256 keyed by the salt,
//! which is never stored) shaped like the original ([`values`]), so a trace can leave the team
//! that captured it while its replay runs without errors the app did not have and keeps the
//! same selectivity and row sizes:
//!
//! * **equality** — the same value always becomes the same value (under one salt), also
//!   between a literal in the SQL text and the same value bound as an argument, so joins,
//!   lookups and duplicates behave as they did; distinct integers and distinct short texts
//!   stay distinct (keys stay keys);
//! * **length** — a string keeps its byte length, a number its digit count, a blob its size;
//! * **type** — text stays text, an integer an integer, a real a real, a blob a blob.
//!
//! What is never changed, because the replay's SQLite must see it as the app's did:
//!
//! * **integers**, unless `integers` is asked: SQLite generates rowid and AUTOINCREMENT keys
//!   on replay as it did in the app, and a literal or argument naming one (a foreign key, a
//!   `WHERE _id = 42`) must still name it. A text SQLite reads as an integer (`'42'`, as
//!   Android binds every argument) counts as that integer. With `integers`, every integer is
//!   permuted among those of its digit count, and keys SQLite generated no longer match;
//! * **the schema's statements** (`CREATE`, `ALTER`, `DROP`): their literals (DEFAULTs,
//!   CHECKs, a view's or trigger's constants) are the app's code, not its users' data;
//! * **PRAGMA statements**: settings, names and values alike (with `identifiers`, only the
//!   table or index a `PRAGMA table_info(…)`-like statement names is renamed, as the schema is);
//! * numbers after `LIMIT`/`OFFSET`, hexadecimal numbers, SQL keywords, built-in function
//!   names, type names (so affinities stay) and `sqlite_` names.
//!
//! Not kept: order (ranges and `ORDER BY` select other rows), and the relation between a
//! `LIKE` pattern and the values it matched. `identifiers` renames table, column and index
//! names; `paths` rewrites database paths and connection names, keeping the file's extension.

mod values;

use super::sql::lexer::{self, Kind};
use super::sql::words::kept_word;
use super::{record::BlobHex, ArgValue, LogRecord, StatementRecord};
use crate::error::{Error, Result};
use crate::limits::MAX_SCHEMA_LITERALS;
use hmac::{Hmac, Mac};
use sha2::Sha256;
use std::cell::RefCell;
use std::collections::HashSet;

/// What to anonymise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    pub literals: bool,
    /// Integers too (implies `literals`): keys SQLite generates no longer match them.
    pub integers: bool,
    pub identifiers: bool,
    pub paths: bool,
}

impl Scope {
    /// `literals[,integers,identifiers,paths]` as `--anonymize` takes it.
    pub fn parse(s: &str) -> Result<Scope> {
        let mut scope = Scope::default();
        for part in s.split(',').map(str::trim) {
            match part {
                "literals" => scope.literals = true,
                "integers" => {
                    scope.literals = true;
                    scope.integers = true;
                }
                "identifiers" => scope.identifiers = true,
                "paths" => scope.paths = true,
                _ => {
                    return Err(Error::input(format!(
                        "--anonymize: unknown part {:?} (literals, integers, identifiers, paths)",
                        part.escape_debug().to_string()
                    )))
                }
            }
        }
        Ok(scope)
    }
}

impl std::fmt::Display for Scope {
    /// The form a trace header records: `literals,integers,identifiers,paths` (the parts
    /// chosen).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<&str> = [
            (self.literals, "literals"),
            (self.integers, "integers"),
            (self.identifiers, "identifiers"),
            (self.paths, "paths"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        f.write_str(&parts.join(","))
    }
}

/// Rewrites records under one salt.
#[derive(Clone)]
pub struct Anonymizer {
    mac: Hmac<Sha256>,
    pub scope: Scope,
    /// The literals the schema's statements hold (`DEFAULT 'none'`, `CHECK (x > 0)`), seen so
    /// far: kept wherever they appear, so a value SQLite fills in from the schema stays equal
    /// to the literal that looks for it. At most [`MAX_SCHEMA_LITERALS`].
    kept: RefCell<HashSet<String>>,
}

impl std::fmt::Debug for Anonymizer {
    /// The scope only: the salt is never shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Anonymizer({})", self.scope)
    }
}

/// The schema's statements: their literals are never changed.
const DDL: &[&str] = &["CREATE", "ALTER", "DROP"];

/// Pragmas whose argument names a table or an index.
const NAMING_PRAGMAS: &[&str] = &[
    "foreign_key_check",
    "foreign_key_list",
    "index_info",
    "index_list",
    "index_xinfo",
    "table_info",
    "table_xinfo",
];

fn previous_word<'a>(toks: &[lexer::Token<'a>], i: usize) -> Option<&'a str> {
    toks[..i]
        .iter()
        .rev()
        .find(|t| !matches!(t.kind, Kind::Space | Kind::Comment))
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.text)
}

impl Anonymizer {
    pub fn new(salt: &str, scope: Scope) -> Anonymizer {
        let mac = <Hmac<Sha256> as Mac>::new_from_slice(salt.as_bytes())
            .expect("HMAC takes a key of any length");
        Anonymizer {
            mac,
            scope,
            kept: RefCell::default(),
        }
    }

    /// How the kept set names a literal token's value: `t:` text, `n:` number, `b:` blob hex.
    fn literal_key(t: &lexer::Token<'_>) -> Option<String> {
        match t.kind {
            _ if t.open => None,
            Kind::Str => Some(format!(
                "t:{}",
                t.text[1..t.text.len() - 1].replace("''", "'")
            )),
            Kind::Number => Some(format!("n:{}", t.text)),
            Kind::Blob => Some(format!(
                "b:{}",
                t.text[2..t.text.len() - 1].to_ascii_lowercase()
            )),
            _ => None,
        }
    }

    fn arg_key(a: &ArgValue) -> Option<String> {
        Some(match a {
            ArgValue::Null => return None,
            ArgValue::Integer(i) => format!("n:{i}"),
            ArgValue::Real(f) => format!("n:{f}"),
            ArgValue::Text(s) => format!("t:{s}"),
            ArgValue::Blob(b) => format!("b:{}", b.blob.to_ascii_lowercase()),
        })
    }

    /// Remember the literals of a schema statement.
    fn learn(&self, sql: &str) {
        let mut kept = self.kept.borrow_mut();
        for key in lexer::tokens(sql).filter_map(|t| Self::literal_key(&t)) {
            if kept.len() as u64 >= MAX_SCHEMA_LITERALS {
                return;
            }
            kept.insert(key);
        }
    }

    fn is_kept(&self, key: Option<String>) -> bool {
        key.is_some_and(|k| self.kept.borrow().contains(&k))
    }

    /// A statement's SQL text: literals as the scope says, except in the schema's statements
    /// (`CREATE`, `ALTER`, `DROP`); a PRAGMA is [`pragma`](Self::pragma)'s.
    pub fn sql(&self, sql: &str) -> String {
        let verb = lexer::verb(sql);
        if verb == "PRAGMA" {
            return self.pragma(sql);
        }
        if DDL.contains(&verb.as_str()) {
            return self.schema_sql(sql);
        }
        self.rewrite(sql, self.scope.literals)
    }

    /// A schema statement (CREATE …): identifiers renamed when asked, its own literals (DEFAULT
    /// values, CHECKs: the app's code, not its users' data) kept, and kept wherever else
    /// they appear.
    pub fn schema_sql(&self, sql: &str) -> String {
        self.learn(sql);
        if !self.scope.identifiers {
            return sql.to_string();
        }
        self.rewrite(sql, false)
    }

    /// `sql` with its names renamed (`identifiers`) and, when `literals`, its literals
    /// mapped (but those the schema holds).
    fn rewrite(&self, sql: &str, literals: bool) -> String {
        let toks: Vec<_> = lexer::tokens(sql).collect();
        let mut out = String::with_capacity(sql.len());
        for (i, t) in toks.iter().enumerate() {
            let literals = literals
                && matches!(t.kind, Kind::Str | Kind::Number | Kind::Blob)
                && !self.is_kept(Self::literal_key(t));
            match t.kind {
                Kind::Str if literals && !t.open => {
                    let inner = &t.text[1..t.text.len() - 1];
                    let value = inner.replace("''", "'");
                    out.push('\'');
                    out.push_str(&self.text(&value).replace('\'', "''"));
                    out.push('\'');
                }
                Kind::Number if literals => {
                    let setting = previous_word(&toks, i).is_some_and(|w| {
                        w.eq_ignore_ascii_case("LIMIT") || w.eq_ignore_ascii_case("OFFSET")
                    });
                    if setting || t.text.starts_with("0x") || t.text.starts_with("0X") {
                        out.push_str(t.text);
                    } else if let Ok(i) = t.text.parse::<i64>() {
                        out.push_str(&self.int_value(i).to_string());
                    } else {
                        out.push_str(&self.number(t.text));
                    }
                }
                Kind::Blob if literals && !t.open => {
                    out.push_str("x'");
                    out.push_str(&self.blob_hex(&t.text[2..t.text.len() - 1]));
                    out.push('\'');
                }
                Kind::Word | Kind::QuotedIdent => self.push_name(t, &mut out),
                _ => out.push_str(t.text),
            }
        }
        out
    }

    /// A name as it is (`identifiers` off, a kept word), or renamed.
    fn push_name(&self, t: &lexer::Token<'_>, out: &mut String) {
        match t.kind {
            Kind::Word if self.scope.identifiers && !kept_word(t.text) => {
                out.push_str(&self.ident(t.text));
            }
            Kind::QuotedIdent if self.scope.identifiers && !t.open => {
                let (open, close) = (&t.text[..1], &t.text[t.text.len() - 1..]);
                let inner = &t.text[1..t.text.len() - 1];
                if kept_word(inner) {
                    out.push_str(t.text);
                } else {
                    out.push_str(open);
                    out.push_str(&self.ident(inner));
                    out.push_str(close);
                }
            }
            _ => out.push_str(t.text),
        }
    }

    /// A PRAGMA: kept, names and values (settings, not data); with `identifiers`, the table
    /// or index a pragma of [`NAMING_PRAGMAS`] is given is renamed as the schema's names are.
    fn pragma(&self, sql: &str) -> String {
        let toks: Vec<_> = lexer::tokens(sql).collect();
        let significant: Vec<usize> = (0..toks.len())
            .filter(|&i| !matches!(toks[i].kind, Kind::Space | Kind::Comment))
            .collect();
        // PRAGMA [schema .] name [= | (] argument
        let word = |k: usize| significant.get(k).map(|&i| toks[i]);
        let at = if word(2).is_some_and(|t| t.text == ".") {
            3
        } else {
            1
        };
        let naming = word(at).is_some_and(|t| {
            t.kind == Kind::Word
                && NAMING_PRAGMAS
                    .iter()
                    .any(|p| p.eq_ignore_ascii_case(t.text))
        });
        let argument = significant[(at + 1).min(significant.len())..]
            .iter()
            .copied()
            .find(|&i| matches!(toks[i].kind, Kind::Word | Kind::QuotedIdent | Kind::Str))
            .filter(|_| naming && self.scope.identifiers);
        let mut out = String::with_capacity(sql.len());
        for (i, t) in toks.iter().enumerate() {
            if Some(i) != argument {
                out.push_str(t.text);
                continue;
            }
            match t.kind {
                Kind::Str if !t.open && !kept_word(&t.text[1..t.text.len() - 1]) => {
                    out.push('\'');
                    out.push_str(&self.ident(&t.text[1..t.text.len() - 1]).replace('\'', "''"));
                    out.push('\'');
                }
                Kind::Str => out.push_str(t.text),
                _ => self.push_name(t, &mut out),
            }
        }
        out
    }

    fn arg(&self, a: &mut ArgValue) {
        match a {
            ArgValue::Null => {}
            ArgValue::Integer(i) => *i = self.int_value(*i),
            ArgValue::Real(f) => *f = self.real(*f),
            ArgValue::Text(s) => *s = self.text(s),
            ArgValue::Blob(BlobHex { blob }) => *blob = self.blob_hex(blob),
        }
    }

    fn statement(&self, s: &mut StatementRecord) {
        s.sql = self.sql(&s.sql);
        if let Some(e) = s.expanded.as_mut() {
            *e = self.sql(e);
        }
        if self.scope.literals && !matches!(lexer::verb(&s.sql).as_str(), "PRAGMA") {
            s.args
                .iter_mut()
                .flatten()
                .filter(|a| !self.is_kept(Self::arg_key(a)))
                .for_each(|a| self.arg(a));
        }
        if self.scope.paths {
            s.db = s.db.as_deref().map(|p| self.path(p));
            s.conn = s.conn.as_deref().map(|p| self.path(p));
        }
    }

    /// Rewrite one record in place.
    pub fn apply(&self, r: &mut LogRecord) {
        match r {
            LogRecord::Statement(s) => self.statement(s),
            LogRecord::Schema(s) => {
                s.sql = self.schema_sql(&s.sql);
                if self.scope.identifiers && !kept_word(&s.name) {
                    s.name = self.ident(&s.name);
                }
                if self.scope.paths {
                    s.db = s.db.as_deref().map(|p| self.path(p));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests;

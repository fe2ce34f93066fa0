//! Anonymising a statement log (`--anonymize literals[,identifiers,paths] --salt S`): every
//! value is replaced by a keyed hash of itself (HMAC-SHA-256 keyed by the salt, which is never
//! stored) shaped like the original, so a trace can leave the team that captured it while
//! its replay keeps the same selectivity and row sizes:
//!
//! * **equality** — the same value always becomes the same value (under one salt), also
//!   between a literal in the SQL text and the same value bound as an argument, so joins,
//!   lookups and duplicates behave as they did;
//! * **length** — a string keeps its byte length, a number its digit count, a blob its size;
//! * **type** — text stays text, an integer an integer, a real a real, a blob a blob.
//!
//! An integer is mapped by a keyed permutation of the integers of its digit count, so
//! distinct integers (keys) stay distinct. Within a text or real value, ASCII letters become
//! letters of the same case and digits digits (a `0` stays `0`, any other digit becomes a
//! non-zero one, so numbers keep their magnitude); distinct short texts may then collide; other
//! ASCII characters (spaces, punctuation, `@`, `/`, `.`) are kept, so the shape of e-mail
//! addresses, URLs and paths stays; a non-ASCII character becomes as many letters as it had
//! bytes. Not kept: order (ranges and `ORDER BY` select other rows), and the relation between a
//! `LIKE` pattern and the values it matched. Numbers after `LIMIT`/`OFFSET` and whole `PRAGMA`
//! statements are settings, not data, and are kept.
//!
//! `identifiers` rewrites table, column and index names the same way, keeping SQL keywords,
//! SQLite's built-in function names, type names (so affinities stay) and `sqlite_` names;
//! `paths` rewrites database paths and connection names, keeping the file's extension.

use super::sql::lexer::{self, Kind};
use super::sql::words::kept_word;
use super::{record::BlobHex, ArgValue, LogRecord, StatementRecord};
use crate::error::{Error, Result};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

/// What to anonymise.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    pub literals: bool,
    pub identifiers: bool,
    pub paths: bool,
}

impl Scope {
    /// `literals[,identifiers,paths]` as `--anonymize` takes it.
    pub fn parse(s: &str) -> Result<Scope> {
        let mut scope = Scope::default();
        for part in s.split(',').map(str::trim) {
            match part {
                "literals" => scope.literals = true,
                "identifiers" => scope.identifiers = true,
                "paths" => scope.paths = true,
                _ => {
                    return Err(Error::input(format!(
                        "--anonymize: unknown part {:?} (literals, identifiers, paths)",
                        part.escape_debug().to_string()
                    )))
                }
            }
        }
        Ok(scope)
    }
}

impl std::fmt::Display for Scope {
    /// The form a trace header records: `literals,identifiers,paths` (the parts chosen).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<&str> = [
            (self.literals, "literals"),
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
}

impl std::fmt::Debug for Anonymizer {
    /// The scope only: the salt is never shown.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Anonymizer({})", self.scope)
    }
}

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
        Anonymizer { mac, scope }
    }

    /// `len` keyed bytes for `value` in `domain`: HMAC(salt, domain ‖ value) as a seed,
    /// stretched by SHA-256(seed ‖ block number).
    fn stream(&self, domain: u8, value: &[u8], len: usize) -> Vec<u8> {
        let mut mac = self.mac.clone();
        mac.update(&[domain]);
        mac.update(value);
        let seed = mac.finalize().into_bytes();
        let mut out = Vec::with_capacity(len + 32);
        let mut block = 0u64;
        while out.len() < len {
            let mut h = Sha256::new();
            h.update(seed);
            h.update(block.to_le_bytes());
            out.extend_from_slice(&h.finalize());
            block += 1;
        }
        out.truncate(len);
        out
    }

    /// A text value: same byte length, letters and digits replaced within their class.
    pub fn text(&self, s: &str) -> String {
        self.shaped(b't', s, true)
    }

    /// A number's text: only its digits change (`0` stays `0`), so `-12.50e3` keeps its shape.
    fn number(&self, s: &str) -> String {
        let unsigned = s.trim_start_matches(['-', '+']);
        let sign = &s[..s.len() - unsigned.len()];
        format!("{sign}{}", self.shaped(b't', unsigned, false))
    }

    fn shaped(&self, domain: u8, s: &str, letters: bool) -> String {
        let k = self.stream(domain, s.as_bytes(), s.len());
        let mut out = String::with_capacity(s.len());
        let mut i = 0;
        for c in s.chars() {
            let r = k[i];
            let n = c.len_utf8();
            match c {
                '0' => out.push('0'),
                '1'..='9' => out.push((b'1' + r % 9) as char),
                'a'..='z' if letters => out.push((b'a' + r % 26) as char),
                'A'..='Z' if letters => out.push((b'A' + r % 26) as char),
                _ if c.is_ascii() => out.push(c),
                _ => (0..n).for_each(|j| out.push((b'a' + k[i + j] % 26) as char)),
            }
            i += n;
        }
        out
    }

    /// An integer: a keyed permutation of the integers with its digit count (cycle-walking
    /// a four-round Feistel network), sign kept; distinct integers stay distinct, so a
    /// primary key stays a key.
    pub fn integer(&self, v: i64) -> i64 {
        let Some(abs) = v.checked_abs() else {
            return v;
        };
        let abs = abs as u64;
        let digits = abs.checked_ilog10().unwrap_or(0);
        let lo = if digits == 0 { 0 } else { 10u64.pow(digits) };
        let n = 10u64.checked_pow(digits + 1).unwrap_or(u64::MAX) - lo;
        let bits = (64 - (n - 1).leading_zeros()).max(2).div_ceil(2);
        let mut x = abs - lo;
        loop {
            x = self.feistel(x, bits);
            if x < n {
                break;
            }
        }
        let out = (lo + x) as i64;
        if v < 0 {
            -out
        } else {
            out
        }
    }

    /// One pass of a balanced Feistel network on `2 * half` bits.
    fn feistel(&self, x: u64, half: u32) -> u64 {
        let mask = (1u64 << half) - 1;
        let (mut l, mut r) = (x >> half, x & mask);
        for round in 0u8..4 {
            let mut mac = self.mac.clone();
            mac.update(&[b'n', round, half as u8]);
            mac.update(&r.to_le_bytes());
            let f = u64::from_le_bytes(mac.finalize().into_bytes()[..8].try_into().unwrap());
            (l, r) = (r, l ^ (f & mask));
        }
        (l << half) | r
    }

    pub fn real(&self, v: f64) -> f64 {
        if !v.is_finite() {
            return v;
        }
        self.number(&v.to_string()).parse().unwrap_or(v)
    }

    /// Blob bytes (hex): the same number of keyed bytes.
    pub fn blob_hex(&self, hex: &str) -> String {
        let bytes: Vec<u8> = (0..hex.len() / 2)
            .filter_map(|i| u8::from_str_radix(hex.get(2 * i..2 * i + 2)?, 16).ok())
            .collect();
        self.stream(b'b', &bytes, bytes.len())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    }

    /// A database path or connection name: letters and digits replaced, the extension kept.
    pub fn path(&self, p: &str) -> String {
        let (stem, ext) = match p.rfind('.') {
            Some(i) if !p[i..].contains('/') => p.split_at(i),
            _ => (p, ""),
        };
        format!("{}{ext}", self.shaped(b'p', stem, true))
    }

    fn ident(&self, name: &str) -> String {
        self.shaped(b'i', &name.to_ascii_lowercase(), true)
    }

    /// A statement's SQL text.
    pub fn sql(&self, sql: &str) -> String {
        let toks: Vec<_> = lexer::tokens(sql).collect();
        let literals = self.scope.literals && lexer::verb(sql) != "PRAGMA";
        let mut out = String::with_capacity(sql.len());
        for (i, t) in toks.iter().enumerate() {
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
                        out.push_str(&self.integer(i).to_string());
                    } else {
                        out.push_str(&self.number(t.text));
                    }
                }
                Kind::Blob if literals && !t.open => {
                    out.push_str("x'");
                    out.push_str(&self.blob_hex(&t.text[2..t.text.len() - 1]));
                    out.push('\'');
                }
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
        out
    }

    fn arg(&self, a: &mut ArgValue) {
        match a {
            ArgValue::Null => {}
            ArgValue::Integer(i) => *i = self.integer(*i),
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
        if self.scope.literals && lexer::verb(&s.sql) != "PRAGMA" {
            s.args.iter_mut().flatten().for_each(|a| self.arg(a));
        }
        if self.scope.paths {
            s.db = s.db.as_deref().map(|p| self.path(p));
            s.conn = s.conn.as_deref().map(|p| self.path(p));
        }
    }

    /// A schema statement (CREATE …): identifiers renamed when asked, its own literals (DEFAULT
    /// values, CHECKs: the app's code, not its users' data) kept.
    pub fn schema_sql(&self, sql: &str) -> String {
        if !self.scope.identifiers {
            return sql.to_string();
        }
        let only_ids = Anonymizer {
            mac: self.mac.clone(),
            scope: Scope {
                identifiers: true,
                ..Scope::default()
            },
        };
        only_ids.sql(sql)
    }

    /// Rewrite one record in place.
    pub fn apply(&self, r: &mut LogRecord) {
        match r {
            LogRecord::Statement(s) => self.statement(s),
            LogRecord::Schema(s) => {
                if self.scope.identifiers {
                    s.sql = self.schema_sql(&s.sql);
                    if !kept_word(&s.name) {
                        s.name = self.ident(&s.name);
                    }
                }
                if self.scope.paths {
                    s.db = s.db.as_deref().map(|p| self.path(p));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Anonymizer {
        Anonymizer::new(
            "pepper",
            Scope::parse("literals,identifiers,paths").unwrap(),
        )
    }

    #[test]
    fn values_keep_equality_length_and_type() {
        let a = Anonymizer::new("pepper", Scope::parse("literals").unwrap());
        let t = a.text("Alice Smith, 42 Main St. café");
        assert_eq!(t, a.text("Alice Smith, 42 Main St. café"));
        assert_ne!(t, "Alice Smith, 42 Main St. café");
        assert_eq!(t.len(), "Alice Smith, 42 Main St. café".len());
        assert_eq!((&t[5..6], &t[11..13]), (" ", ", "), "punctuation kept");
        assert!(t.as_bytes()[0].is_ascii_uppercase() && t.as_bytes()[1].is_ascii_lowercase());
        assert!((1000..10000).contains(&a.integer(1205)));
        assert!(a.integer(-7) < 0 && a.integer(-7) > -10);
        // A permutation: the hundred two-digit integers map onto themselves.
        let mut two: Vec<i64> = (10..100).map(|i| a.integer(i)).collect();
        two.sort();
        assert_eq!(two, (10..100).collect::<Vec<i64>>());
        assert_eq!(a.integer(i64::MAX).to_string().len(), 19);
        assert_eq!(a.blob_hex("00ff10").len(), 6);
        assert_ne!(a.text("x"), Anonymizer::new("salt2", a.scope).text("x"));
        let p = a.path("/data/user/0/com.example/databases/x.db");
        assert_eq!(p.len(), "/data/user/0/com.example/databases/x.db".len());
        assert!(p.ends_with("/x.db") || p.ends_with(".db") && p.matches('/').count() == 6);
    }

    #[test]
    fn a_literal_in_the_sql_and_the_same_bound_value_stay_equal() {
        let a = Anonymizer::new("pepper", Scope::parse("literals").unwrap());
        let sql = a
            .sql("SELECT * FROM t WHERE a = 'it''s' AND b = -12 AND c = x'00ff' LIMIT 10 OFFSET 5");
        let expect = format!(
            "SELECT * FROM t WHERE a = '{}' AND b = {} AND c = x'{}' LIMIT 10 OFFSET 5",
            a.text("it's").replace('\'', "''"),
            a.integer(-12),
            a.blob_hex("00ff")
        );
        assert_eq!(sql, expect);
        assert_eq!(a.sql("PRAGMA user_version = 3"), "PRAGMA user_version = 3");
        let mut r = LogRecord::Statement(StatementRecord {
            sql: "UPDATE t SET a = ? WHERE b = 7".into(),
            args: Some(vec![ArgValue::Text("it's".into()), ArgValue::Null]),
            ..Default::default()
        });
        a.apply(&mut r);
        let LogRecord::Statement(s) = r else { panic!() };
        assert_eq!(
            s.args.unwrap(),
            [ArgValue::Text(a.text("it's")), ArgValue::Null]
        );
        assert_eq!(
            s.sql,
            format!("UPDATE t SET a = ? WHERE b = {}", a.integer(7))
        );
    }

    #[test]
    fn an_anonymised_schema_and_workload_select_the_same_rows_on_sqlite() {
        let a = all();
        let schema = "CREATE TABLE Notes(id INTEGER PRIMARY KEY, title TEXT NOT NULL, score REAL)";
        let rows = [
            (1, "groceries", 2.5),
            (2, "groceries", 1.0),
            (3, "work", 2.5),
        ];
        let query = "SELECT count(*), max(n.id) FROM notes AS n WHERE n.title = 'groceries' AND score = 2.5";
        let run = |schema: &str, insert: &dyn Fn(i64, &str, f64) -> String, q: &str| {
            let db = rusqlite::Connection::open_in_memory().unwrap();
            db.execute_batch(schema).unwrap();
            for (id, t, s) in rows {
                db.execute_batch(&insert(id, t, s)).unwrap();
            }
            db.query_row(q, [], |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?)))
                .unwrap()
        };
        let plain = run(
            schema,
            &|i, t, s| format!("INSERT INTO notes VALUES({i}, '{t}', {s})"),
            query,
        );
        let mut sch = LogRecord::Schema(super::super::SchemaRecord {
            db: Some("/data/user/0/com.example.notes/databases/notes.db".into()),
            kind: "table".into(),
            name: "Notes".into(),
            sql: schema.into(),
        });
        a.apply(&mut sch);
        let LogRecord::Schema(sch) = sch else {
            panic!()
        };
        assert!(!sch.sql.contains("title") && sch.sql.contains("INTEGER PRIMARY KEY"));
        assert!(
            sch.db.as_deref().unwrap().ends_with(".db") && !sch.db.unwrap().contains("example")
        );
        let anon = run(
            &sch.sql,
            &|i, t, s| a.sql(&format!("INSERT INTO notes VALUES({i}, '{t}', {s})")),
            &a.sql(query),
        );
        assert_eq!(plain.0, 1);
        assert_eq!(anon.0, plain.0, "same rows selected");
        assert_eq!(anon.1, a.integer(plain.1));
    }

    #[test]
    fn bad_scopes_are_named() {
        let e = Scope::parse("literals,names").unwrap_err().to_string();
        assert!(e.contains("--anonymize") && e.contains("names"), "{e}");
        assert_eq!(
            Scope::parse("paths,literals").unwrap().to_string(),
            "literals,paths"
        );
    }
}

//! Reading a statement's constraints without a parser, as `.expert` reads them through its
//! virtual tables: for a SELECT, UPDATE or DELETE over one table (an alias allowed; no join,
//! no comma, no subquery in FROM), the columns its WHERE compares for equality (`=`, `==`,
//! `IS`, `IN`) and by range (`<`, `<=`, `>`, `>=`, `BETWEEN`) with a value (a literal or a
//! parameter), and its ORDER BY when every term is a plain column. A WHERE with OR gives no
//! constraint. Tokens come from the import's SQL lexer.

use crate::workload::import::sql::lexer::{tokens, Kind, Token};

/// The constraints of a statement over one table.
#[derive(Debug, Default, PartialEq)]
pub struct Constraints {
    pub table: String,
    /// Columns compared for equality (`=`, `==`, `IS`, `IN`), in order, once each.
    pub eq: Vec<String>,
    /// Columns compared by range (`<`, `<=`, `>`, `>=`, `BETWEEN`), in order.
    pub range: Vec<String>,
    /// ORDER BY columns with ` DESC` where descending; empty when it orders by anything else.
    pub order: Vec<String>,
}

/// A simple SQL word: an identifier as written (quotes dropped), upper-cased for keywords.
fn word(t: &Token<'_>) -> Option<String> {
    match t.kind {
        Kind::Word => Some(t.text.to_string()),
        Kind::QuotedIdent if !t.open => t.text.get(1..t.text.len() - 1).map(str::to_string),
        _ => None,
    }
}

fn is_kw(t: &Token<'_>, kw: &str) -> bool {
    t.kind == Kind::Word && t.text.eq_ignore_ascii_case(kw)
}

/// Read the constraints of a single-table SELECT, UPDATE or DELETE; `None` for anything else.
pub fn constraints(sql: &str) -> Option<Constraints> {
    let toks: Vec<_> = tokens(sql)
        .filter(|t| !matches!(t.kind, Kind::Space | Kind::Comment))
        .collect();
    let first = toks.first()?;
    let (table_at, where_from) = if is_kw(first, "SELECT") {
        let from = top_level(&toks, 1, |t| is_kw(t, "FROM"))?;
        (from + 1, from + 2)
    } else if is_kw(first, "UPDATE") {
        (1, 2)
    } else if is_kw(first, "DELETE") && toks.get(1).is_some_and(|t| is_kw(t, "FROM")) {
        (2, 3)
    } else {
        return None;
    };
    let table_tok = toks.get(table_at)?;
    let mut table = word(table_tok)?;
    let mut next = where_from;
    if toks.get(next).is_some_and(|t| t.text == ".") {
        table = word(toks.get(next + 1)?)?;
        next += 2;
    }
    let mut c = Constraints {
        table,
        ..Default::default()
    };
    // The clauses after the table: an alias, then WHERE, GROUP BY, ORDER BY, LIMIT.
    let clause = |from: usize, kw: &[&str]| {
        top_level(&toks, from, |t| kw.iter().any(|k| is_kw(t, k))).unwrap_or(toks.len())
    };
    let where_at = top_level(&toks, next, |t| is_kw(t, "WHERE"));
    let after_table = where_at.unwrap_or_else(|| clause(next, &["GROUP", "ORDER", "LIMIT"]));
    // Only an alias may sit between the table and its WHERE (no join, no comma, no subquery).
    let between = &toks[next.min(after_table)..after_table];
    let alias = |t: &Token<'_>| {
        t.kind == Kind::Word
            && ![
                "JOIN", "NATURAL", "LEFT", "RIGHT", "FULL", "INNER", "CROSS", "INDEXED", "NOT",
            ]
            .iter()
            .any(|k| is_kw(t, k))
    };
    let single = if is_kw(first, "UPDATE") {
        !between.iter().any(|t| is_kw(t, "FROM"))
    } else {
        match between {
            [] => true,
            [a] => alias(a),
            [as_, a] => is_kw(as_, "AS") && alias(a),
            _ => false,
        }
    };
    if !single {
        return None;
    }
    if let Some(w) = where_at {
        let end = clause(w + 1, &["GROUP", "ORDER", "LIMIT", "RETURNING"]);
        let terms = &toks[w + 1..end];
        if terms.iter().any(|t| is_kw(t, "OR")) {
            return Some(c);
        }
        for term in split_and(terms) {
            read_term(term, &mut c);
        }
    }
    if let Some(o) = top_level(&toks, next, |t| is_kw(t, "ORDER")) {
        if toks.get(o + 1).is_some_and(|t| is_kw(t, "BY")) {
            let end = clause(o + 2, &["LIMIT"]);
            c.order = order_terms(&toks[o + 2..end]).unwrap_or_default();
        }
    }
    Some(c)
}

type Toks<'a> = [Token<'a>];

/// The first token from `from` at parenthesis depth 0 that `f` accepts.
fn top_level(toks: &Toks<'_>, from: usize, f: impl Fn(&Token<'_>) -> bool) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in toks.iter().enumerate().skip(from) {
        match t.text {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ if depth == 0 && f(t) => return Some(i),
            _ => {}
        }
    }
    None
}

/// The terms of a WHERE clause joined by AND at depth 0 (a BETWEEN's AND stays in its term).
fn split_and<'a, 'b>(toks: &'b Toks<'a>) -> Vec<&'b Toks<'a>> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut between) = (0i32, 0usize, false);
    for (i, t) in toks.iter().enumerate() {
        match t.text {
            "(" => depth += 1,
            ")" => depth -= 1,
            _ if depth == 0 && is_kw(t, "BETWEEN") => between = true,
            _ if depth == 0 && is_kw(t, "AND") => {
                if between {
                    between = false;
                } else {
                    out.push(&toks[start..i]);
                    start = i + 1;
                }
            }
            _ => {}
        }
    }
    out.push(&toks[start..]);
    out
}

/// `[q.]col OP value` (or `value OP col`): note the column as an equality or a range.
fn read_term(term: &Toks<'_>, c: &mut Constraints) {
    let col_at = |i: usize| -> Option<(String, usize)> {
        let name = word(term.get(i)?)?;
        if term.get(i + 1).is_some_and(|t| t.text == ".") {
            return Some((word(term.get(i + 2)?)?, i + 3));
        }
        Some((name, i + 1))
    };
    let Some((col, op_at)) = col_at(0) else {
        return;
    };
    let op: String = term[op_at..]
        .iter()
        .take_while(|t| t.kind == Kind::Punct && t.text != "(")
        .map(|t| t.text)
        .collect();
    let word_op = term.get(op_at).filter(|t| t.kind == Kind::Word);
    let rest_at = op_at + op.chars().count().max(usize::from(word_op.is_some()));
    let rest = &term[rest_at.min(term.len())..];
    // The other side must be a value: no bare word naming something (a column).
    let value = !rest.is_empty()
        && rest.iter().all(|t| {
            matches!(
                t.kind,
                Kind::Str | Kind::Number | Kind::Blob | Kind::Param | Kind::Punct
            ) || is_kw(t, "AND")
                || is_kw(t, "NULL")
        });
    let kind = match (op.as_str(), word_op) {
        ("=" | "==", None) => Some(true),
        ("<" | "<=" | ">" | ">=", None) => Some(false),
        ("", Some(w)) if is_kw(w, "IS") && !rest.first().is_some_and(|t| is_kw(t, "NOT")) => {
            Some(true)
        }
        ("", Some(w)) if is_kw(w, "IN") => Some(true),
        ("", Some(w)) if is_kw(w, "BETWEEN") => Some(false),
        _ => None,
    };
    match kind {
        Some(true) if value && !c.eq.contains(&col) => c.eq.push(col),
        Some(false) if value && !c.range.contains(&col) => c.range.push(col),
        _ => {}
    }
}

/// ORDER BY terms that are plain columns (` DESC` kept); `None` when one is anything else.
fn order_terms(toks: &Toks<'_>) -> Option<Vec<String>> {
    let mut out = Vec::new();
    for term in toks.split(|t| t.text == ",") {
        let (col, rest) = match term {
            [q, dot, c, rest @ ..] if dot.text == "." => {
                let _ = word(q)?;
                (word(c)?, rest)
            }
            [c, rest @ ..] => (word(c)?, rest),
            [] => return None,
        };
        match rest {
            [] => out.push(col),
            [d] if is_kw(d, "ASC") => out.push(col),
            [d] if is_kw(d, "DESC") => out.push(format!("{col} DESC")),
            _ => return None,
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constraints_of_a_single_table_statement() {
        let c = constraints(
            "SELECT * FROM t WHERE b = 3 AND a = ? AND c > 5 AND d BETWEEN 1 AND 2 ORDER BY e DESC LIMIT 3",
        )
        .unwrap();
        assert_eq!(c.table, "t");
        assert_eq!(c.eq, ["b", "a"]);
        assert_eq!(c.range, ["c", "d"]);
        assert_eq!(c.order, ["e DESC"]);
        let u = constraints("UPDATE main.t SET x = 1 WHERE k = ?").unwrap();
        assert_eq!(
            (u.table.as_str(), u.eq.as_slice()),
            ("t", &["k".to_string()][..])
        );
        let d = constraints("DELETE FROM t WHERE k IN (1, 2)").unwrap();
        assert_eq!(d.eq, ["k"]);
        assert!(constraints("SELECT * FROM a JOIN b ON a.x = b.y WHERE a.k = 1").is_none());
        assert!(constraints("SELECT * FROM a, b WHERE a.k = 1").is_none());
        let or = constraints("SELECT * FROM t WHERE a = 1 OR b = 2").unwrap();
        assert!(or.eq.is_empty());
        let cols = constraints("SELECT * FROM t WHERE a = b").unwrap();
        assert!(
            cols.eq.is_empty(),
            "a column compared with a column is no constraint"
        );
    }
}

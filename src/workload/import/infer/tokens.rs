//! A statement as `--infer-schema` reads it ([`infer`](super)): its tokens without space and
//! comments, bare words upper-cased, quoted identifiers unquoted, literals as values, and each
//! parameter replaced by its bound argument (numbered as SQLite numbers them); and the
//! comparison operators after a column.

use crate::workload::import::sql::lexer::{tokens, Kind, ParamNumbers};
use crate::workload::import::sql::words::kept_word;
use crate::workload::op::SqlValue;

/// A statement reduced to what the inference reads.
#[derive(Clone, Debug, PartialEq)]
pub enum T {
    /// A bare word, upper-cased, and as written.
    Word(String, String),
    /// A quoted identifier, unquoted.
    Ident(String),
    Value(SqlValue),
    Punct(String),
}

impl T {
    /// The name a table or column token stands for (not a keyword).
    pub fn name(&self) -> Option<&str> {
        match self {
            T::Word(up, w) if !kept_word(up) => Some(w),
            T::Ident(n) => Some(n),
            _ => None,
        }
    }
    pub fn is(&self, word: &str) -> bool {
        matches!(self, T::Word(up, _) if up == word)
    }
    pub fn punct(&self, p: &str) -> bool {
        matches!(self, T::Punct(x) if x == p)
    }
}

fn literal_number(text: &str) -> SqlValue {
    if let Some(hex) = text.strip_prefix("0x").or_else(|| text.strip_prefix("0X")) {
        return u64::from_str_radix(hex, 16)
            .map_or(SqlValue::Null, |v| SqlValue::Integer(v as i64));
    }
    match text.parse::<i64>() {
        Ok(i) => SqlValue::Integer(i),
        Err(_) => text.parse::<f64>().map_or(SqlValue::Null, SqlValue::Real),
    }
}

/// The statement's tokens, parameters replaced by their bound arguments (numbered as SQLite
/// numbers them) and literals by their values.
pub fn reduce(sql: &str, args: &[SqlValue]) -> Vec<T> {
    let mut out = Vec::new();
    let mut numbers = ParamNumbers::default();
    for t in tokens(sql) {
        let v = match t.kind {
            Kind::Space | Kind::Comment => continue,
            Kind::Word if t.text.eq_ignore_ascii_case("null") => T::Value(SqlValue::Null),
            Kind::Word => T::Word(t.text.to_ascii_uppercase(), t.text.to_string()),
            Kind::QuotedIdent if t.text.len() >= 2 && !t.open => {
                let inner = &t.text[1..t.text.len() - 1];
                T::Ident(match t.text.as_bytes()[0] {
                    b'"' => inner.replace("\"\"", "\""),
                    b'`' => inner.replace("``", "`"),
                    _ => inner.to_string(),
                })
            }
            Kind::Str if t.text.len() >= 2 && !t.open => T::Value(SqlValue::Text(
                t.text[1..t.text.len() - 1].replace("''", "'"),
            )),
            Kind::Blob if !t.open => T::Value(SqlValue::Blob(
                crate::workload::import::record::blob_bytes(&t.text[2..t.text.len() - 1])
                    .unwrap_or_default(),
            )),
            Kind::Number => T::Value(literal_number(t.text)),
            Kind::Param => T::Value(
                numbers
                    .number(t.text, args.len() + 1)
                    .and_then(|n| args.get(n.checked_sub(1)?))
                    .cloned()
                    .unwrap_or(SqlValue::Null),
            ),
            _ => T::Punct(t.text.to_string()),
        };
        // A minus sign before a number (not after an operand) belongs to it.
        let negate = matches!(&v, T::Value(SqlValue::Integer(_) | SqlValue::Real(_)))
            && out.last().is_some_and(|m: &T| m.punct("-"))
            && !out.len().checked_sub(2).is_some_and(|k| {
                let before = &out[k];
                matches!(before, T::Value(_) | T::Ident(_))
                    || before.punct(")")
                    || before.name().is_some()
            });
        if negate {
            out.pop();
            out.push(T::Value(match v {
                T::Value(SqlValue::Integer(i)) => SqlValue::Integer(i.wrapping_neg()),
                T::Value(SqlValue::Real(r)) => SqlValue::Real(-r),
                _ => SqlValue::Null,
            }));
            continue;
        }
        out.push(v);
    }
    out
}

/// Comparison operators after a column (the characters of `=`, `==`, `!=`, `<>`, `<=`, …).
pub fn comparison_at(toks: &[T], i: usize) -> Option<usize> {
    let mut j = i;
    while toks
        .get(j)
        .is_some_and(|t| matches!(t, T::Punct(p) if "=<>!".contains(p.as_str())))
    {
        j += 1;
    }
    if j > i {
        return Some(j);
    }
    match toks.get(i) {
        Some(t) if t.is("LIKE") || t.is("GLOB") => Some(i + 1),
        Some(t) if t.is("IS") => Some(if toks.get(i + 1).is_some_and(|n| n.is("NOT")) {
            i + 2
        } else {
            i + 1
        }),
        _ => None,
    }
}

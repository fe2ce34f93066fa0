//! Statement templates: parsing SQL text with placeholders (`{key}`, `{new_key}`,
//! `{int:LO:HI}`, `{float:LO:HI}`, `{text:N}`, `{{`/`}}` for literal braces) once into
//! segments, and rendering them per statement from the given keys and random stream.

use crate::error::{Error, Result};
use crate::workload::rng::Rng;
use crate::workload::values::{write_word_salad, SPEC_TEXT};
use std::fmt::Write as _;

/// Longest `{text:N}` accepted, so a typo cannot ask for gigabytes per statement.
pub const MAX_TEXT_LEN: usize = 1 << 20;

const PLACEHOLDERS: &str = "{key}, {new_key}, {int:LO:HI}, {float:LO:HI} or {text:N}";

/// The key values of one statement: every `{key}` and every `{new_key}` in it render the same.
#[derive(Clone, Copy)]
pub(super) struct Keys {
    pub(super) key: u64,
    pub(super) new_key: u64,
}

/// One piece of a parsed template.
#[derive(Clone, Debug, PartialEq)]
enum Segment {
    Literal(String),
    Key,
    NewKey,
    Int { lo: i64, hi: i64 },
    Float { lo: f64, hi: f64 },
    Text(usize),
}

/// A SQL statement with placeholders, parsed once.
#[derive(Clone, Debug)]
pub(super) struct Template {
    segments: Vec<Segment>,
    pub(super) uses_key: bool,
    pub(super) uses_new_key: bool,
    /// Rendered length guess, to allocate once.
    size_hint: usize,
}

impl Template {
    /// Parse `text`; `{{` and `}}` stand for literal braces. Errors are prefixed with `at`.
    pub(super) fn parse(text: &str, at: &str) -> Result<Template> {
        crate::limits::check_sql(text, at)?;
        let mut segments = Vec::new();
        let mut literal = String::new();
        let mut rest = text;
        while let Some(i) = rest.find(['{', '}']) {
            literal.push_str(&rest[..i]);
            let brace = &rest[i..i + 1];
            if rest[i + 1..].starts_with(brace) {
                literal.push_str(brace);
                rest = &rest[i + 2..];
                continue;
            }
            if brace == "}" {
                return Err(Error::input(format!(
                    "{at}: unmatched '}}' (write '}}}}' for a literal brace)"
                )));
            }
            let close = rest[i..].find('}').ok_or_else(|| {
                Error::input(format!(
                    "{at}: unclosed '{{' (write '{{{{' for a literal brace)"
                ))
            })?;
            if !literal.is_empty() {
                segments.push(Segment::Literal(std::mem::take(&mut literal)));
            }
            segments.push(placeholder(&rest[i + 1..i + close], at)?);
            rest = &rest[i + close + 1..];
        }
        literal.push_str(rest);
        if !literal.is_empty() {
            segments.push(Segment::Literal(literal));
        }
        let size_hint = segments.iter().map(Segment::size_hint).sum();
        Ok(Template {
            uses_key: segments.contains(&Segment::Key),
            uses_new_key: segments.contains(&Segment::NewKey),
            segments,
            size_hint,
        })
    }

    pub(super) fn render(&self, keys: Keys, rng: &mut Rng) -> String {
        let mut out = String::with_capacity(self.size_hint);
        for segment in &self.segments {
            // Writing to a String cannot fail.
            match *segment {
                Segment::Literal(ref s) => out.push_str(s),
                Segment::Key => {
                    let _ = write!(out, "{}", keys.key);
                }
                Segment::NewKey => {
                    let _ = write!(out, "{}", keys.new_key);
                }
                Segment::Int { lo, hi } => {
                    let _ = write!(out, "{}", uniform_int(rng, lo, hi));
                }
                Segment::Float { lo, hi } => {
                    let _ = write!(out, "{:.4}", lo + (hi - lo) * rng.next_f64());
                }
                Segment::Text(len) => {
                    out.push('\'');
                    write_word_salad(&mut out, rng, len, &SPEC_TEXT);
                    out.push('\'');
                }
            }
        }
        out
    }
}

impl Segment {
    fn size_hint(&self) -> usize {
        match self {
            Segment::Literal(s) => s.len(),
            Segment::Text(len) => len + 2,
            _ => 20,
        }
    }
}

/// Parse the inside of `{…}`.
fn placeholder(inner: &str, at: &str) -> Result<Segment> {
    let bad = |why: &str| Error::input(format!("{at}: placeholder {{{inner}}}: {why}"));
    let parts: Vec<&str> = inner.split(':').map(str::trim).collect();
    match parts.as_slice() {
        ["key"] => Ok(Segment::Key),
        ["new_key"] => Ok(Segment::NewKey),
        ["int", lo, hi] => {
            let (lo, hi) = (lo.parse::<i64>(), hi.parse::<i64>());
            match (lo, hi) {
                (Ok(lo), Ok(hi)) if lo <= hi => Ok(Segment::Int { lo, hi }),
                (Ok(_), Ok(_)) => Err(bad("LO must not exceed HI")),
                _ => Err(bad("LO and HI must be integers")),
            }
        }
        ["float", lo, hi] => {
            let (lo, hi) = (lo.parse::<f64>(), hi.parse::<f64>());
            match (lo, hi) {
                (Ok(lo), Ok(hi)) if lo.is_finite() && hi.is_finite() && lo <= hi => {
                    Ok(Segment::Float { lo, hi })
                }
                _ => Err(bad("LO and HI must be finite numbers, LO not above HI")),
            }
        }
        ["text", n] => match n.parse::<usize>() {
            Ok(n) if n <= MAX_TEXT_LEN => Ok(Segment::Text(n)),
            _ => Err(bad(&format!("N must be a whole number from 0 to {MAX_TEXT_LEN}"))),
        },
        [name, ..] if ["key", "new_key", "int", "float", "text"].contains(name) => {
            Err(bad(&format!("wrong number of arguments (expected {PLACEHOLDERS})")))
        }
        _ => Err(Error::input(format!(
            "{at}: unknown placeholder {{{inner}}} (expected {PLACEHOLDERS}; write {{{{ and }}}} for literal braces)"
        ))),
    }
}

/// Uniform in `lo..=hi`, over the whole `i64` range if asked.
fn uniform_int(rng: &mut Rng, lo: i64, hi: i64) -> i64 {
    let span = hi.abs_diff(lo);
    let offset = match span.checked_add(1) {
        Some(n) => rng.below(n),
        None => rng.next_u64(),
    };
    lo.wrapping_add_unsigned(offset)
}

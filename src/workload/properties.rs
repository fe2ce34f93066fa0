//! Java `.properties` parsing, so YCSB workload files are read unchanged.
//!
//! Follows `java.util.Properties.load`: `#` and `!` comment lines, `key=value`, `key: value`
//! and `key value` separators, a backslash at the end of a line continuing it (leading
//! whitespace of the continuation is dropped), and the escapes `\t \n \r \f \uXXXX` (any
//! other escaped character stands for itself). A later duplicate key replaces an earlier one.

use crate::error::{Error, Result};
use std::collections::BTreeMap;

/// Parse properties text; `origin` (a file name) prefixes error messages, with the line.
pub fn parse(text: &str, origin: &str) -> Result<BTreeMap<String, String>> {
    let mut map = BTreeMap::new();
    // Java ends a line at `\n`, `\r` or `\r\n`.
    let text = text.replace("\r\n", "\n");
    let mut lines = text
        .split(['\n', '\r'])
        .enumerate()
        .map(|(i, l)| (i + 1, l));
    while let Some(logical) = next_logical_line(&mut lines) {
        let (key, value) = split_entry(&logical)
            .map_err(|(line, msg)| Error::input(format!("{origin}:{line}: {msg}")))?;
        map.insert(key, value);
    }
    Ok(map)
}

/// One character of a logical line with the (1-based) natural line it came from.
type Located = (char, usize);

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\u{c}')
}

/// Join natural lines into the next logical line that is neither blank nor a comment.
fn next_logical_line<'a>(
    lines: &mut impl Iterator<Item = (usize, &'a str)>,
) -> Option<Vec<Located>> {
    let mut out: Vec<Located> = Vec::new();
    let mut continuing = false;
    for (no, raw) in lines.by_ref() {
        let line = raw.trim_start_matches(is_blank);
        if !continuing && (line.is_empty() || line.starts_with('#') || line.starts_with('!')) {
            continue;
        }
        let trailing = line.chars().rev().take_while(|&c| c == '\\').count();
        continuing = trailing % 2 == 1;
        let kept = if continuing {
            &line[..line.len() - 1]
        } else {
            line
        };
        out.extend(kept.chars().map(|c| (c, no)));
        if !continuing {
            return Some(out);
        }
    }
    // A continuation at the end of the input ends the last entry.
    (continuing || !out.is_empty()).then_some(out)
}

/// Split a logical line into its unescaped key and value.
fn split_entry(chars: &[Located]) -> std::result::Result<(String, String), (usize, String)> {
    let mut i = 0;
    let mut escaped = false;
    while i < chars.len() {
        let c = chars[i].0;
        if !escaped && (c == '=' || c == ':' || is_blank(c)) {
            break;
        }
        escaped = !escaped && c == '\\';
        i += 1;
    }
    let key = unescape(&chars[..i])?;
    let mut j = i;
    while j < chars.len() && is_blank(chars[j].0) {
        j += 1;
    }
    if j < chars.len() && (chars[j].0 == '=' || chars[j].0 == ':') {
        j += 1;
        while j < chars.len() && is_blank(chars[j].0) {
            j += 1;
        }
    }
    Ok((key, unescape(&chars[j..])?))
}

/// Resolve backslash escapes.
fn unescape(chars: &[Located]) -> std::result::Result<String, (usize, String)> {
    let mut out = String::with_capacity(chars.len());
    let mut it = chars.iter().copied();
    while let Some((c, line)) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some(('t', _)) => out.push('\t'),
            Some(('n', _)) => out.push('\n'),
            Some(('r', _)) => out.push('\r'),
            Some(('f', _)) => out.push('\u{c}'),
            Some(('u', _)) => out.push(unicode_escape(&mut it).map_err(|m| (line, m))?),
            Some((other, _)) => out.push(other),
            None => {}
        }
    }
    Ok(out)
}

/// The character of a `\uXXXX` escape whose `\u` has been consumed.
fn unicode_escape(it: &mut impl Iterator<Item = Located>) -> std::result::Result<char, String> {
    let digits: String = it.take(4).map(|(c, _)| c).collect();
    let code = (digits.len() == 4 && digits.chars().all(|c| c.is_ascii_hexdigit()))
        .then(|| u32::from_str_radix(&digits, 16).ok())
        .flatten()
        .ok_or_else(|| format!("malformed \\uXXXX escape \"\\u{digits}\""))?;
    char::from_u32(code).ok_or_else(|| format!("\\u{digits} is not a character on its own"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(m: &'a BTreeMap<String, String>, k: &str) -> &'a str {
        m.get(k).map(String::as_str).unwrap_or("<missing>")
    }

    #[test]
    fn separators_comments_and_whitespace() {
        let text = "# comment\n! also comment\n\n  a=1\nb: two words \nc three\n\
                    d\t=\t4\ne\nf=\ng = x=y:z\n";
        let m = parse(text, "t").expect("parses");
        assert_eq!(get(&m, "a"), "1");
        assert_eq!(get(&m, "b"), "two words ");
        assert_eq!(get(&m, "c"), "three");
        assert_eq!(get(&m, "d"), "4");
        assert_eq!(get(&m, "e"), "");
        assert_eq!(get(&m, "f"), "");
        assert_eq!(get(&m, "g"), "x=y:z");
        assert_eq!(m.len(), 7);
    }

    #[test]
    fn continuation_and_escapes() {
        let text = "list = one, \\\n     two, \\\n  three\nesc=a\\tb\\nc\\\\d\\u0041\\:\n\
                    key\\ with\\=odd = v\nodd=ends\\\\\nnext=1\n# comment \\\nafter=2\r\nold=mac\rlast=3";
        let m = parse(text, "t").expect("parses");
        assert_eq!(get(&m, "list"), "one, two, three");
        assert_eq!(get(&m, "esc"), "a\tb\nc\\dA:");
        assert_eq!(get(&m, "key with=odd"), "v");
        assert_eq!(get(&m, "odd"), "ends\\");
        assert_eq!(get(&m, "next"), "1");
        assert_eq!(get(&m, "after"), "2");
        assert_eq!(get(&m, "old"), "mac");
        assert_eq!(get(&m, "last"), "3");
    }

    #[test]
    fn continuation_at_end_of_input() {
        let m = parse("k = v\\", "t").expect("parses");
        assert_eq!(get(&m, "k"), "v");
    }

    #[test]
    fn later_duplicates_win() {
        let m = parse("a=1\na=2\n", "t").expect("parses");
        assert_eq!(get(&m, "a"), "2");
    }

    #[test]
    fn bad_unicode_escape_names_origin_and_line() {
        let err = parse("a=1\n\nb=\\u12G4\n", "w.properties").expect_err("must fail");
        assert_eq!(
            err.to_string(),
            "w.properties:3: malformed \\uXXXX escape \"\\u12G4\""
        );
        assert_eq!(err.exit_code(), 2);
        let err = parse("a=x\\\n  \\u12", "w").expect_err("must fail");
        assert!(err.to_string().starts_with("w:2: "), "{err}");
    }

    #[test]
    fn real_ycsb_workload_file_parses() {
        let text = "# Copyright (c) 2010 Yahoo! Inc. All rights reserved.            \n\
                    #                                                                  \n\n\n\
                    # Yahoo! Cloud System Benchmark\n# Workload A: Update heavy workload\n\
                    #                        \n\
                    recordcount=1000\noperationcount=1000\n\
                    workload=site.ycsb.workloads.CoreWorkload\n\nreadallfields=true\n\n\
                    readproportion=0.5\nupdateproportion=0.5\nscanproportion=0\n\
                    insertproportion=0\n\nrequestdistribution=zipfian\n\n\
                    #measurement.raw.output_file = /tmp/your_output_file_for_this_run\n\
                    measurement.raw.output_file = /tmp/out\n";
        let m = parse(text, "workloada").expect("parses");
        assert_eq!(get(&m, "readproportion"), "0.5");
        assert_eq!(get(&m, "requestdistribution"), "zipfian");
        assert_eq!(get(&m, "workload"), "site.ycsb.workloads.CoreWorkload");
        assert_eq!(get(&m, "measurement.raw.output_file"), "/tmp/out");
        assert_eq!(m.len(), 10);
    }
}

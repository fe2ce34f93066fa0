//! The rule by which what an example printed is compared with the output its document shows
//! (docs/ARCHITECTURE.md, "A command example"). Measured figures change from run to run, so a
//! shown line is a pattern, as in trycmd and snapbox:
//!
//! - `…` (or trycmd's `[..]`) inside a line stands for any text, none included;
//! - a line that is only `…` (or `...`) stands for any number of lines, none included;
//! - a number (digits with an optional fraction, not glued to a letter or digit before it)
//!   stands for any number, so `1800 ops` matches `100 ops` but not `n/a ops`; with a unit
//!   of time or size after it (`s`, `ms`, `µs`, `ns`, `B`, `KiB`, `MiB`, `GiB`, `TiB`) it
//!   stands for any number with any of those units, so `12.12 s` matches `702.90 ms` (the
//!   output picks the unit by magnitude) but not `702 ops`;
//! - a run of spaces stands for one or more spaces, so tables may realign as widths change;
//! - everything else is literal, and trailing spaces and blank lines at the end are ignored.
//!
//! What an example printed matches when its stdout does, or its stdout followed by its stderr
//! does (so progress lines on stderr need not be shown, and messages can be).

/// One piece of a shown line.
#[derive(Debug, PartialEq)]
enum Piece {
    Text(char),
    Spaces,
    Number,
    /// A number with a unit of time or size.
    Quantity,
    Any,
}

/// The units a quantity's number may carry (the output picks one by magnitude).
const UNITS: [&str; 9] = ["ns", "µs", "ms", "s", "B", "KiB", "MiB", "GiB", "TiB"];

/// The length of the unit (after at most one space) at the start of `s`; 0 if none.
fn unit_len(s: &[char]) -> usize {
    let space = usize::from(s.first() == Some(&' '));
    let word: String = s[space..]
        .iter()
        .take_while(|c| c.is_alphanumeric())
        .collect();
    if UNITS.contains(&word.as_str()) {
        space + word.chars().count()
    } else {
        0
    }
}

fn pieces(line: &str) -> Vec<Piece> {
    let chars: Vec<char> = line.trim_end().chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let glued = i > 0 && (chars[i - 1].is_alphanumeric() || chars[i - 1] == '.');
        if c == '…' {
            out.push(Piece::Any);
            i += 1;
        } else if chars[i..].starts_with(&['[', '.', '.', ']']) {
            out.push(Piece::Any);
            i += 4;
        } else if c == ' ' {
            while i < chars.len() && chars[i] == ' ' {
                i += 1;
            }
            out.push(Piece::Spaces);
        } else if c.is_ascii_digit() && !glued {
            i += number_len(&chars[i..]);
            let unit = unit_len(&chars[i..]);
            i += unit;
            out.push(if unit > 0 {
                Piece::Quantity
            } else {
                Piece::Number
            });
        } else {
            out.push(Piece::Text(c));
            i += 1;
        }
    }
    out
}

/// The length of the number at the start of `s` (digits, then `.digits` if any); 0 if none.
fn number_len(s: &[char]) -> usize {
    let digits = |from: usize| s[from..].iter().take_while(|c| c.is_ascii_digit()).count();
    let whole = digits(0);
    if whole > 0 && s.get(whole) == Some(&'.') {
        let fraction = digits(whole + 1);
        if fraction > 0 {
            return whole + 1 + fraction;
        }
    }
    whole
}

fn line_matches(p: &[Piece], s: &[char]) -> bool {
    match p.first() {
        None => s.is_empty(),
        Some(Piece::Any) => (0..=s.len()).any(|k| line_matches(&p[1..], &s[k..])),
        Some(Piece::Spaces) => {
            let n = s.iter().take_while(|c| **c == ' ').count();
            n > 0 && line_matches(&p[1..], &s[n..])
        }
        Some(Piece::Number) => {
            let n = number_len(s);
            n > 0 && line_matches(&p[1..], &s[n..])
        }
        Some(Piece::Quantity) => {
            let n = number_len(s);
            let u = unit_len(&s[n..]);
            n > 0 && u > 0 && line_matches(&p[1..], &s[n + u..])
        }
        Some(Piece::Text(c)) => s.first() == Some(c) && line_matches(&p[1..], &s[1..]),
    }
}

/// Whether the shown line `pattern` matches the printed line `line`.
pub fn line(pattern: &str, line: &str) -> bool {
    let chars: Vec<char> = line.trim_end().chars().collect();
    line_matches(&pieces(pattern), &chars)
}

fn any_lines(pattern: &str) -> bool {
    matches!(pattern.trim(), "…" | "...")
}

fn trimmed<'a>(lines: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut v: Vec<&str> = lines.collect();
    while v.last().is_some_and(|l| l.trim().is_empty()) {
        v.pop();
    }
    v
}

/// Whether `printed` (the whole text) matches the shown lines `shown`.
pub fn output(shown: &[String], printed: &str) -> bool {
    let want = trimmed(shown.iter().map(String::as_str));
    let got = trimmed(printed.lines());
    // fits[j]: the shown lines so far match the first j printed lines.
    let mut fits = vec![false; got.len() + 1];
    fits[0] = true;
    for w in want {
        let mut next = vec![false; got.len() + 1];
        for j in 0..=got.len() {
            if any_lines(w) {
                next[j] = fits[j] || (j > 0 && next[j - 1]);
            } else if j > 0 {
                next[j] = fits[j - 1] && line(w, got[j - 1]);
            }
        }
        fits = next;
    }
    fits[got.len()]
}

#[test]
fn shown_output_matches_by_the_documented_rule() {
    // Numbers stand for numbers; spaces for spaces; words are literal.
    assert!(line("wall 12.44 s", "wall 3.1 s"));
    assert!(line("stored     run #1 in a.db", "stored run #27 in a.db"));
    assert!(line("  read   1800    43.7", "  read     17   143.75"));
    assert!(!line("wall 12.44 s", "wall n/a s"));
    // A quantity: any number with any unit of time or size, with or without the space.
    assert!(line("over 12.12 s = 75.73 ms", "over 702.90 ms = 8.99 ms"));
    assert!(line("RSS 9232.0 KiB; 0 B", "RSS 37.2 MiB; 16 B"));
    assert!(line("for 150ms.", "for 2 s."));
    assert!(!line("over 12.12 s", "over 12 ops"));
    assert!(!line("1 file(s)", "1 s(s)"));
    assert!(!line("12 seconds", "12 s"));
    assert!(!line("1 models have results", "1 model has results"));
    assert!(!line("B is 1 ± 0.003× lower", "B is 0.3% lower"));
    assert!(!line("a b", "ab"));
    // A digit glued to a letter is literal (versions, hex digests, names like p50).
    assert!(line("p50 3", "p50 9"));
    assert!(!line("p50 3", "p95 3"));
    assert!(!line("trace 95773ddef41ce5dd", "trace 95773ddef41ce5de"));
    // `…` and `[..]` within a line: any text, none included.
    assert!(line("energy null: … (…)", "energy null: no RAPL (x; y)"));
    assert!(line("a [..]b", "a b"));
    assert!(line("a …b", "a xyz b"));
    assert!(!line("a …b", "a xyz c"));
    // Trailing spaces are ignored.
    assert!(line("x  ", "x"));
}

#[test]
fn shown_lines_match_whole_outputs() {
    let shown = |s: &str| s.lines().map(String::from).collect::<Vec<_>>();
    assert!(output(&shown("a 1\nb 2"), "a 10\nb 20\n\n"));
    // A `…` line: any lines, none included.
    assert!(output(&shown("a\n…\nz"), "a\nz\n"));
    assert!(output(&shown("a\n...\nz"), "a\nb\nc\nz\n"));
    assert!(output(&shown("…\nz"), "x\ny\nz"));
    // A mismatch fails: a missing line, an extra line, a changed word.
    assert!(!output(&shown("a\nb\nc"), "a\nc\n"));
    assert!(!output(&shown("a\nc"), "a\nb\nc\n"));
    assert!(!output(
        &shown("idle baseline 12 s"),
        "idle baseline for 12.056488767s"
    ));
    assert!(!output(&shown("a\n…\nz"), "a\nb\n"));
    // Blank lines inside count.
    assert!(!output(&shown("a\n\nb"), "a\nb"));
}

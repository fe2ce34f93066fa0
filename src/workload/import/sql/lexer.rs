//! A small SQL lexer for imported statements: enough of SQLite's tokenizer to tell string
//! literals, blob literals (`x'..'`), numbers, bare and quoted identifiers (`"..."`, `[...]`,
//! `` `...` ``), parameters (`?`, `?7`, `:a`, `@a`, `$a`), comments and whitespace apart. The
//! front ends use it to know whether a statement split over several log lines is complete
//! (not inside a quote), the statistics to fingerprint statements (literals as `?`), the
//! anonymiser to find what it rewrites, and [`super::sqltext`] and the schema inference to
//! read statements (parameters numbered by [`ParamNumbers`]). It never fails: an unterminated quote or comment is
//! one last token of its kind marked [`Token::open`].
//!
//! Hand-written because the SQL parser crates parse a dialect into a tree (and refuse what
//! they do not know), where this needs SQLite's lexical rules only, over any input, at
//! gigabytes per minute.

/// What a token is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Space,
    Comment,
    /// `'...'` with `''` as an escaped quote.
    Str,
    /// `x'0aff'` or `X'..'`.
    Blob,
    /// `12`, `1.5e3`, `.5`, `0x1F`.
    Number,
    /// A bare word: a keyword or an identifier.
    Word,
    /// `"name"`, `[name]` or `` `name` ``.
    QuotedIdent,
    /// `?`, `?NNN`, `:name`, `@name`, `$name`.
    Param,
    /// Any other character (operators, punctuation).
    Punct,
}

/// One token: its kind, its text, and whether it runs to the end of the input unterminated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token<'a> {
    pub kind: Kind,
    pub text: &'a str,
    pub open: bool,
}

/// The tokens of `sql`, in order; their texts concatenated give `sql` back.
pub fn tokens(sql: &str) -> Tokens<'_> {
    Tokens { sql, pos: 0 }
}

/// Iterator over the tokens of a statement.
pub struct Tokens<'a> {
    sql: &'a str,
    pos: usize,
}

/// The bytes that continue a bare word (and start one, but for digits): ASCII letters and
/// digits, `_`, `$`, and every byte of a non-ASCII character; a table, as the lexer asks it
/// of every byte of every word.
const WORD_BYTES: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        let b = i as u8;
        t[i] = b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80;
        i += 1;
    }
    t
};

/// Whether `b` continues a bare word (or starts one, when it is no digit).
pub fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[b as usize]
}

/// The end of a quote starting at `start` (the opening byte) closed by `close`, with a doubled
/// closing byte as an escape when `doubled`; `None` when it runs off the end.
fn quote_end(b: &[u8], start: usize, close: u8, doubled: bool) -> Option<usize> {
    let mut i = start + 1;
    loop {
        i += memchr::memchr(close, b.get(i..)?)?;
        if doubled && b.get(i + 1) == Some(&close) {
            i += 2;
            continue;
        }
        return Some(i + 1);
    }
}

impl<'a> Iterator for Tokens<'a> {
    type Item = Token<'a>;

    fn next(&mut self) -> Option<Token<'a>> {
        let b = self.sql.as_bytes();
        let start = self.pos;
        if start >= b.len() {
            return None;
        }
        let c = b[start];
        let next = b.get(start + 1).copied();
        let (kind, end, open) = match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {
                let n = b[start..]
                    .iter()
                    .take_while(|x| matches!(x, b' ' | b'\t' | b'\n' | b'\r' | 0x0c))
                    .count();
                (Kind::Space, start + n, false)
            }
            b'-' if next == Some(b'-') => {
                let end = b[start..]
                    .iter()
                    .position(|&x| x == b'\n')
                    .map_or(b.len(), |p| start + p);
                (Kind::Comment, end, false)
            }
            b'/' if next == Some(b'*') => match self.sql[start + 2..].find("*/") {
                Some(p) => (Kind::Comment, start + 2 + p + 2, false),
                None => (Kind::Comment, b.len(), true),
            },
            b'\'' => match quote_end(b, start, b'\'', true) {
                Some(e) => (Kind::Str, e, false),
                None => (Kind::Str, b.len(), true),
            },
            b'x' | b'X' if next == Some(b'\'') => match quote_end(b, start + 1, b'\'', false) {
                Some(e) => (Kind::Blob, e, false),
                None => (Kind::Blob, b.len(), true),
            },
            b'"' | b'`' => match quote_end(b, start, c, true) {
                Some(e) => (Kind::QuotedIdent, e, false),
                None => (Kind::QuotedIdent, b.len(), true),
            },
            b'[' => match quote_end(b, start, b']', false) {
                Some(e) => (Kind::QuotedIdent, e, false),
                None => (Kind::QuotedIdent, b.len(), true),
            },
            b'?' => {
                let n = b[start + 1..]
                    .iter()
                    .take_while(|x| x.is_ascii_digit())
                    .count();
                (Kind::Param, start + 1 + n, false)
            }
            b':' | b'@' | b'$' if next.is_some_and(is_word_byte) => {
                let n = b[start + 1..]
                    .iter()
                    .take_while(|&&x| is_word_byte(x))
                    .count();
                (Kind::Param, start + 1 + n, false)
            }
            b'0'..=b'9' => (Kind::Number, number_end(b, start), false),
            b'.' if next.is_some_and(|x| x.is_ascii_digit()) => {
                (Kind::Number, number_end(b, start), false)
            }
            _ if is_word_byte(c) => {
                let n = b[start..].iter().take_while(|&&x| is_word_byte(x)).count();
                (Kind::Word, start + n, false)
            }
            _ => {
                // One character (a whole UTF-8 sequence).
                let len = self.sql[start..].chars().next().map_or(1, char::len_utf8);
                (Kind::Punct, start + len, false)
            }
        };
        self.pos = end;
        Some(Token {
            kind,
            text: &self.sql[start..end],
            open,
        })
    }
}

fn number_end(b: &[u8], start: usize) -> usize {
    let mut i = start;
    if b[i] == b'0' && matches!(b.get(i + 1), Some(b'x' | b'X')) {
        i += 2;
        while i < b.len() && b[i].is_ascii_hexdigit() {
            i += 1;
        }
        return i;
    }
    while i < b.len() && b[i].is_ascii_digit() {
        i += 1;
    }
    if i < b.len() && b[i] == b'.' {
        i += 1;
        while i < b.len() && b[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i < b.len() && matches!(b[i], b'e' | b'E') {
        let mut j = i + 1;
        if j < b.len() && matches!(b[j], b'+' | b'-') {
            j += 1;
        }
        if j < b.len() && b[j].is_ascii_digit() {
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    i
}

/// Parameter numbers as SQLite gives them, token by token: `?` takes the next number, `?NNN`
/// that number (later `?` continue above it), a named parameter (`:a`, `@a`, `$a`) the next
/// number at its first appearance and the same one after.
#[derive(Debug, Default)]
pub struct ParamNumbers<'a> {
    names: Vec<(&'a str, usize)>,
    next: usize,
}

impl<'a> ParamNumbers<'a> {
    /// The 1-based number of the parameter token `text`; `None` for a `?NNN` that is no number
    /// (or above `max`, where numbering stops being useful).
    pub fn number(&mut self, text: &'a str, max: usize) -> Option<usize> {
        if let Some(digits) = text.strip_prefix('?') {
            if digits.is_empty() {
                self.next += 1;
                return Some(self.next);
            }
            let n: usize = digits.parse().ok().filter(|n| *n <= max)?;
            self.next = self.next.max(n);
            return Some(n);
        }
        if let Some((_, k)) = self.names.iter().find(|(n, _)| *n == text) {
            return Some(*k);
        }
        self.next += 1;
        self.names.push((text, self.next));
        Some(self.next)
    }
}

/// Whether `sql` ends inside a quote or a block comment (so a statement split over log lines
/// continues on the next one): whether its last token is [`Token::open`], found without
/// making the tokens. Outside quotes and comments, each of `'` `"` `` ` `` `[` is where a
/// token starts (no other token holds one), and so is `--` and `/*` (a number's exponent
/// takes a `-` only before a digit); a blob `x'..'` closes where a string from its quote
/// would, or the string goes on from there as the blob's next token would.
pub fn ends_open(sql: &str) -> bool {
    let b = sql.as_bytes();
    let mut i = 0;
    // The next quote and the next of `[`, `-`, `/` from `i` on, each found by memchr and
    // looked for again only once `i` has passed it (most texts hold few of either).
    let find = |set: [u8; 3], i: usize| {
        memchr::memchr3(set[0], set[1], set[2], &b[i..]).map_or(b.len(), |p| i + p)
    };
    let (quotes, others) = ([b'\'', b'"', b'`'], [b'[', b'-', b'/']);
    let (mut quote, mut other) = (find(quotes, 0), find(others, 0));
    loop {
        if quote < i {
            quote = find(quotes, i);
        }
        if other < i {
            other = find(others, i);
        }
        let at = quote.min(other);
        if at >= b.len() {
            return false;
        }
        let c = b[at];
        let next = b.get(at + 1).copied();
        let end = match c {
            b'\'' | b'"' | b'`' => quote_end(b, at, c, true),
            b'[' => memchr::memchr(b']', &b[at + 1..]).map(|p| at + 1 + p + 1),
            b'-' if next == Some(b'-') => match memchr::memchr(b'\n', &b[at..]) {
                Some(p) => Some(at + p),
                None => return false,
            },
            b'/' if next == Some(b'*') => {
                memchr::memmem::find(&b[at + 2..], b"*/").map(|p| at + 2 + p + 2)
            }
            _ => Some(at + 1),
        };
        match end {
            Some(e) => i = e,
            None => return true,
        }
    }
}

/// The statement's shape: literals and parameters as `?`, comments dropped, whitespace runs
/// as one space, bare words upper-cased (SQLite's keywords and identifiers ignore case);
/// statements that differ only in their literals share it.
pub fn fingerprint(sql: &str) -> String {
    let mut out = String::new();
    fingerprint_into(sql, &mut out);
    out
}

/// [`fingerprint`] written into `out` (cleared first, so one buffer serves every statement);
/// whether the text is likely to come again: it has a parameter (a prepared statement's), or
/// no literal (a string, blob or number; a text with its values written in seldom repeats).
/// The tokens as [`tokens`] reads them, each found in one step here rather than made (this
/// runs for every statement of a log).
pub fn fingerprint_into(sql: &str, out: &mut String) -> bool {
    #[derive(PartialEq)]
    enum Written {
        Text,
        Literal,
        Param,
    }
    out.clear();
    out.reserve(sql.len());
    let b = sql.as_bytes();
    let (mut i, mut space, mut literal, mut param) = (0, false, false, false);
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        // Where the token ends, and what it is written as: `?` (a literal or a parameter),
        // else its own text.
        let (end, written) = match c {
            b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {
                i += 1;
                while i < b.len() && matches!(b[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0c) {
                    i += 1;
                }
                space = !out.is_empty();
                continue;
            }
            b'-' if next == Some(b'-') => {
                i = memchr::memchr(b'\n', &b[i..]).map_or(b.len(), |p| i + p);
                space = !out.is_empty();
                continue;
            }
            b'/' if next == Some(b'*') => {
                i = memchr::memmem::find(&b[i + 2..], b"*/").map_or(b.len(), |p| i + 2 + p + 2);
                space = !out.is_empty();
                continue;
            }
            b'\'' => (
                quote_end(b, i, b'\'', true).unwrap_or(b.len()),
                Written::Literal,
            ),
            b'x' | b'X' if next == Some(b'\'') => (
                quote_end(b, i + 1, b'\'', false).unwrap_or(b.len()),
                Written::Literal,
            ),
            b'"' | b'`' => (quote_end(b, i, c, true).unwrap_or(b.len()), Written::Text),
            b'[' => (
                quote_end(b, i, b']', false).unwrap_or(b.len()),
                Written::Text,
            ),
            b'?' => {
                let mut e = i + 1;
                while e < b.len() && b[e].is_ascii_digit() {
                    e += 1;
                }
                (e, Written::Param)
            }
            b':' | b'@' | b'$' if next.is_some_and(is_word_byte) => {
                let mut e = i + 1;
                while e < b.len() && is_word_byte(b[e]) {
                    e += 1;
                }
                (e, Written::Param)
            }
            b'0'..=b'9' => (number_end(b, i), Written::Literal),
            b'.' if next.is_some_and(|x| x.is_ascii_digit()) => {
                (number_end(b, i), Written::Literal)
            }
            _ if is_word_byte(c) => {
                let mut e = i + 1;
                while e < b.len() && is_word_byte(b[e]) {
                    e += 1;
                }
                if space {
                    out.push(' ');
                    space = false;
                }
                let from = out.len();
                out.push_str(&sql[i..e]);
                out[from..].make_ascii_uppercase();
                i = e;
                continue;
            }
            // A quoted identifier's text, or one character (any byte that is no word byte is
            // ASCII: one character).
            _ => (i + 1, Written::Text),
        };
        if space {
            out.push(' ');
            space = false;
        }
        match written {
            Written::Text => out.push_str(&sql[i..end]),
            Written::Literal | Written::Param => out.push('?'),
        }
        literal |= written == Written::Literal;
        param |= written == Written::Param;
        i = end;
    }
    param || !literal
}

/// The first word of a statement, upper-cased (`SELECT`, `INSERT`, `BEGIN`, `WITH`, …),
/// after any comments; empty when it does not start with a word.
pub fn verb(sql: &str) -> String {
    tokens(sql)
        .find(|t| !matches!(t.kind, Kind::Space | Kind::Comment | Kind::Punct))
        .filter(|t| t.kind == Kind::Word)
        .map(|t| t.text.to_ascii_uppercase())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(sql: &str) -> Vec<(Kind, &str)> {
        tokens(sql)
            .filter(|t| t.kind != Kind::Space)
            .map(|t| (t.kind, t.text))
            .collect()
    }

    #[test]
    fn every_literal_and_identifier_form_is_told_apart() {
        use Kind::*;
        assert_eq!(
            kinds("SELECT \"a b\", [c], `d`, x'00FF', 'it''s', 1.5e3, .5, 0x1f, ?2, :n FROM t -- c\n/* d */"),
            [
                (Word, "SELECT"),
                (QuotedIdent, "\"a b\""),
                (Punct, ","),
                (QuotedIdent, "[c]"),
                (Punct, ","),
                (QuotedIdent, "`d`"),
                (Punct, ","),
                (Blob, "x'00FF'"),
                (Punct, ","),
                (Str, "'it''s'"),
                (Punct, ","),
                (Number, "1.5e3"),
                (Punct, ","),
                (Number, ".5"),
                (Punct, ","),
                (Number, "0x1f"),
                (Punct, ","),
                (Param, "?2"),
                (Punct, ","),
                (Param, ":n"),
                (Word, "FROM"),
                (Word, "t"),
                (Comment, "-- c"),
                (Comment, "/* d */"),
            ]
        );
    }

    #[test]
    fn the_tokens_give_the_text_back_and_open_quotes_are_marked() {
        for s in ["a 'b", "é'ü", "/* x", "\"q", "x'0", "[z"] {
            assert_eq!(tokens(s).map(|t| t.text).collect::<String>(), s);
            assert!(ends_open(s), "{s}");
        }
        assert!(!ends_open("INSERT INTO t VALUES('a;b')"));
    }

    #[test]
    fn ends_open_is_the_last_tokens_openness_for_every_short_text() {
        let alphabet = [
            "'", "\"", "`", "[", "]", "-", "/", "*", "x", "1", "e", "\n", "a", " ",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = texts
                .iter()
                .filter(|t| t.len() + 1 > texts.last().map_or(0, |l| l.len()))
                .flat_map(|t| alphabet.iter().map(move |a| format!("{t}{a}")))
                .collect();
            for t in &longer {
                assert_eq!(
                    ends_open(t),
                    tokens(t).last().is_some_and(|t| t.open),
                    "{t:?}"
                );
            }
            texts = longer;
        }
    }

    /// The fingerprint as the tokens define it (what [`fingerprint_into`] computes without
    /// making them).
    fn fingerprint_of_tokens(sql: &str) -> String {
        let mut out = String::new();
        let mut space = false;
        for t in tokens(sql) {
            if matches!(t.kind, Kind::Space | Kind::Comment) {
                space = !out.is_empty();
                continue;
            }
            if std::mem::take(&mut space) {
                out.push(' ');
            }
            match t.kind {
                Kind::Str | Kind::Blob | Kind::Number | Kind::Param => out.push('?'),
                Kind::Word => out.push_str(&t.text.to_ascii_uppercase()),
                _ => out.push_str(t.text),
            }
        }
        out
    }

    #[test]
    fn the_fingerprint_is_the_tokens_for_every_short_text() {
        let alphabet = [
            "'", "\"", "`", "[", "]", "-", "/", "*", "x", "X", "1", ".", "e", "\n", " ", "?", ":",
            "$", "@", "é", "a", "(", "0x",
        ];
        let mut texts = vec![String::new()];
        for _ in 0..4 {
            texts = texts
                .iter()
                .flat_map(|t| alphabet.iter().map(move |a| format!("{t}{a}")))
                .collect();
            for t in &texts {
                let mut out = String::from("stale");
                let repeats = fingerprint_into(t, &mut out);
                assert_eq!(out, fingerprint_of_tokens(t), "{t:?}");
                let has = |kinds: &[Kind]| tokens(t).any(|k| kinds.contains(&k.kind));
                let literal = has(&[Kind::Str, Kind::Blob, Kind::Number]);
                assert_eq!(repeats, has(&[Kind::Param]) || !literal, "{t:?}");
            }
        }
        for t in [
            "select *  from t\n where a = 'x' and b=12 -- why\n",
            "/* c */ INSERT INTO [t u] VALUES(x'00', ?1, :n, @m, $p, 1.5e-3, .5, 0x1F, 'it''s')",
            "  UPDATE \"é\" SET a=a||'/*' WHERE `b` = ?  ",
        ] {
            assert_eq!(fingerprint(t), fingerprint_of_tokens(t), "{t:?}");
        }
    }

    #[test]
    fn fingerprints_replace_literals_and_collapse_space() {
        assert_eq!(
            fingerprint("select *  from t\n where a = 'x' and b=12 -- why\n"),
            "SELECT * FROM T WHERE A = ? AND B=?"
        );
        assert_eq!(
            fingerprint("SELECT * FROM t WHERE a = ?"),
            fingerprint("select * from T where A = 'y'")
        );
        assert_eq!(verb("  /* c */ insert into t values(1)"), "INSERT");
    }
}

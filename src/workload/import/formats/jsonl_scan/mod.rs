//! A fast reader of the one line shape `capture` writes, `{"statement":{"t_ns":…,…}}` with no
//! whitespace, for the [`jsonl`](super::jsonl) front end. It owns no rules of its own: it
//! answers only for lines it reads exactly as serde_json reads them into a
//! [`StatementRecord`], and gives up (`None`) on anything else — whitespace, an unknown or
//! repeated field, a surrogate `\u` escape, a number serde_json would read as another type,
//! an argument of any form but `null`, an integer, a real, a string or `{"blob":"…"}` — so the
//! caller reads that line with serde_json, and every line reads the same either way (the
//! `import_jsonl` fuzz target checks the two against each other).
//!
//! Why by hand: serde_json reads each typed argument through an untagged enum, which formats
//! an error message for every variant it tries before the one that fits; with a statement's
//! text and its expanded form copied through that, a capture's line cost about 100 µs.

use crate::limits::MAX_SQL_BYTES;
use crate::workload::import::record::{ArgValue, BlobHex, Stamp, StatementRecord};

/// The record of a capture's statement line, or `None`: read the line with serde_json.
pub fn statement(line: &str) -> Option<StatementRecord> {
    read(line, true)
}

/// [`statement`] as an import reads it: the expanded text of a statement with bound
/// arguments is validated, measured and left out (`None`) rather than decoded, where nothing
/// after the front end reads it — the conversion binds or writes in the arguments instead —
/// and kept where something does: a NUL in it (the line is dropped for it), a size above the
/// limit (likewise), or a first word that may be `CREATE`, `ALTER` or `DROP` (`--anonymize`
/// learns a schema statement's literals from it).
pub fn statement_bound(line: &str) -> Option<StatementRecord> {
    read(line, false)
}

fn read(line: &str, expanded_always: bool) -> Option<StatementRecord> {
    let b = line.as_bytes();
    // Without control bytes in the line (a JSON line has none), a string ends at the next `"`
    // or `\`, which memchr finds many bytes at a time.
    let plain_text = !has_control(b);
    let mut p = Parser {
        s: line,
        b,
        i: 0,
        plain_text,
    };
    p.lit(b"{\"statement\":{")?;
    let mut rec = StatementRecord::default();
    let (mut seen, mut t_ns, mut sql) = (0u16, false, false);
    // The expanded text not decoded: where it starts, and whether it must be.
    let mut skipped: Option<(usize, bool)> = None;
    if p.peek()? == b'}' {
        return None;
    }
    loop {
        let field = field(p.key()?)?;
        if seen & (1 << field as u16) != 0 {
            return None;
        }
        seen |= 1 << field as u16;
        match field {
            Field::TNs => {
                rec.t_ns = p.unsigned()?;
                t_ns = true;
            }
            Field::Stamp => {
                rec.stamp = match p.string()?.as_str() {
                    "start" => Stamp::Start,
                    "end" => Stamp::End,
                    _ => return None,
                }
            }
            Field::DurNs => rec.dur_ns = p.nullable(Parser::unsigned)?,
            Field::Pid => rec.pid = p.nullable(|p| u32::try_from(p.unsigned()?).ok())?,
            Field::Tid => rec.tid = p.nullable(|p| u32::try_from(p.unsigned()?).ok())?,
            Field::Conn => rec.conn = p.nullable(Parser::string)?,
            Field::Db => rec.db = p.nullable(Parser::string)?,
            Field::Sql => {
                rec.sql = p.string()?;
                sql = true;
            }
            Field::Expanded if expanded_always => rec.expanded = p.nullable(Parser::string)?,
            Field::Expanded => {
                let at = p.i;
                skipped = p.nullable(Parser::skip)?.map(|needed| (at, needed));
            }
            Field::Args => rec.args = p.nullable(Parser::args)?,
            Field::Rows => rec.rows = p.nullable(Parser::unsigned)?,
            Field::Status => rec.status = p.nullable(|p| i32::try_from(p.integer()?).ok())?,
        }
        match p.next()? {
            b',' => continue,
            b'}' => break,
            _ => return None,
        }
    }
    p.lit(b"}")?;
    if p.i != p.b.len() || !t_ns || !sql {
        return None;
    }
    if let Some((at, needed)) = skipped {
        if needed || rec.args.as_ref().is_none_or(Vec::is_empty) {
            p.i = at;
            rec.expanded = Some(p.string()?);
        }
    }
    Some(rec)
}

/// Whether `text` (a JSON string's bytes after its opening quote) may read, decoded, as a
/// statement whose first word is `CREATE`, `ALTER` or `DROP`: unless it starts with a bare
/// word ending before any escape that is none of them.
fn may_be_ddl(text: &[u8]) -> bool {
    use crate::workload::import::sql::lexer::is_word_byte;
    if !text.first().is_some_and(u8::is_ascii_alphabetic) {
        return true;
    }
    let n = text.iter().take_while(|&&c| is_word_byte(c)).count();
    text.get(n) == Some(&b'\\')
        || ["CREATE", "ALTER", "DROP"]
            .iter()
            .any(|k| text[..n].eq_ignore_ascii_case(k.as_bytes()))
}

/// The fields of [`StatementRecord`].
#[derive(Clone, Copy)]
enum Field {
    TNs,
    Stamp,
    DurNs,
    Pid,
    Tid,
    Conn,
    Db,
    Sql,
    Expanded,
    Args,
    Rows,
    Status,
}

/// The field serde names `key`.
fn field(key: &str) -> Option<Field> {
    Some(match key {
        "t_ns" => Field::TNs,
        "stamp" => Field::Stamp,
        "dur_ns" => Field::DurNs,
        "pid" => Field::Pid,
        "tid" => Field::Tid,
        "conn" => Field::Conn,
        "db" => Field::Db,
        "sql" => Field::Sql,
        "expanded" => Field::Expanded,
        "args" => Field::Args,
        "rows" => Field::Rows,
        "status" => Field::Status,
        _ => return None,
    })
}

struct Parser<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    /// The line has no byte below 0x20.
    plain_text: bool,
}

/// Whether any byte of `b` is below 0x20: 32 bytes a step, each block tested without a branch
/// (which the compiler turns into vector instructions).
fn has_control(b: &[u8]) -> bool {
    let (blocks, rest) = b.as_chunks::<32>();
    blocks
        .iter()
        .any(|block| block.iter().fold(false, |any, &c| any | (c < 0x20)))
        || rest.iter().any(|&c| c < 0x20)
}

/// Whether any byte of `x` is `"`, `\` or below 0x20 (what ends a run of plain string bytes).
fn special(x: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    zero(x ^ (ONES * b'"' as u64))
        | zero(x ^ (ONES * b'\\' as u64))
        | (x.wrapping_sub(ONES * 0x20) & !x & HIGH)
        != 0
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }

    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }

    fn lit(&mut self, l: &[u8]) -> Option<()> {
        let end = self.i + l.len();
        (self.b.get(self.i..end)? == l).then(|| self.i = end)
    }

    /// `"name":` with a plain name.
    fn key(&mut self) -> Option<&'a str> {
        self.lit(b"\"")?;
        let start = self.i;
        let len = self.b[start..]
            .iter()
            .position(|&c| c == b'"' || c == b'\\' || c < 0x20)?;
        self.i += len;
        self.lit(b"\":")?;
        Some(&self.s[start..start + len])
    }

    fn nullable<T>(&mut self, f: impl FnOnce(&mut Self) -> Option<T>) -> Option<Option<T>> {
        if self.lit(b"null").is_some() {
            return Some(None);
        }
        f(self).map(Some)
    }

    /// An unsigned integer as serde_json reads one (no leading zero, no fraction or exponent
    /// after it, within a `u64`).
    fn unsigned(&mut self) -> Option<u64> {
        let start = self.i;
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.i += 1;
        }
        let d = &self.b[start..self.i];
        if d.is_empty() || (d[0] == b'0' && d.len() > 1) {
            return None;
        }
        if matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        d.iter().try_fold(0u64, |n, c| {
            n.checked_mul(10)?.checked_add(u64::from(c - b'0'))
        })
    }

    /// An integer within an `i64` (`-0`, and `i64::MIN`, are left to serde_json: it reads the
    /// first as a real).
    fn integer(&mut self) -> Option<i64> {
        if self.lit(b"-").is_some() {
            let n = i64::try_from(self.unsigned()?).ok()?;
            return (n != 0).then_some(-n);
        }
        i64::try_from(self.unsigned()?).ok()
    }

    /// Past the plain string bytes from here (to a `"`, a `\` or a control byte), eight at
    /// a time.
    fn plain(&mut self) {
        if self.plain_text {
            self.i +=
                memchr::memchr2(b'"', b'\\', &self.b[self.i..]).unwrap_or(self.b.len() - self.i);
            return;
        }
        while let Some(chunk) = self.b.get(self.i..self.i + 8) {
            let word = u64::from_le_bytes(chunk.try_into().unwrap_or([b'"'; 8]));
            if special(word) {
                break;
            }
            self.i += 8;
        }
        while self
            .peek()
            .is_some_and(|c| c != b'"' && c != b'\\' && c >= 0x20)
        {
            self.i += 1;
        }
    }

    /// A string's value: one copy when it has no escape, else the runs between escapes and
    /// the escapes decoded.
    fn string(&mut self) -> Option<String> {
        self.lit(b"\"")?;
        let start = self.i;
        self.plain();
        if self.peek()? == b'"' {
            self.i += 1;
            return Some(self.s[start..self.i - 1].to_string());
        }
        // Room for the whole string as written (escapes only shorten it), so it grows no more.
        let mut out = String::with_capacity(self.closing() - start);
        out.push_str(&self.s[start..self.i]);
        loop {
            match self.next()? {
                b'"' => return Some(out),
                b'\\' => out.push(self.escape()?),
                _ => return None,
            }
            let run = self.i;
            self.plain();
            out.push_str(&self.s[run..self.i]);
        }
    }

    /// Past a string, validated as [`Parser::string`] reads it but not decoded; whether it
    /// must be decoded after all (see [`statement_bound`]).
    fn skip(&mut self) -> Option<bool> {
        self.lit(b"\"")?;
        let start = self.i;
        let (mut len, mut nul) = (0usize, false);
        loop {
            let run = self.i;
            self.plain();
            len += self.i - run;
            match self.next()? {
                b'"' => break,
                b'\\' => {
                    let c = self.escape()?;
                    len += c.len_utf8();
                    nul |= c == '\0';
                }
                _ => return None,
            }
        }
        Some(nul || len as u64 > MAX_SQL_BYTES || may_be_ddl(&self.b[start..]))
    }

    /// Where the string being read ends (its closing `"`, else the line's end), from an
    /// escape or a control byte on.
    fn closing(&self) -> usize {
        let mut i = self.i;
        while let Some(at) = memchr::memchr2(b'"', b'\\', &self.b[i..]) {
            match self.b[i + at] {
                b'"' => return i + at,
                _ => i += at + 2,
            }
            if i >= self.b.len() {
                break;
            }
        }
        self.b.len()
    }

    /// The character of an escape after its `\`; surrogates are left to serde_json.
    fn escape(&mut self) -> Option<char> {
        Some(match self.next()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let hex = self.s.get(self.i..self.i + 4)?;
                if !hex.bytes().all(|c| c.is_ascii_hexdigit()) {
                    return None;
                }
                self.i += 4;
                char::from_u32(u32::from_str_radix(hex, 16).ok()?)?
            }
            _ => return None,
        })
    }

    /// `[arg, …]`.
    fn args(&mut self) -> Option<Vec<ArgValue>> {
        self.lit(b"[")?;
        if self.lit(b"]").is_some() {
            return Some(Vec::new());
        }
        // Room for as many as the list has commas (an upper bound), so it grows no more.
        let end = memchr::memchr(b']', &self.b[self.i..]).map_or(self.b.len(), |n| self.i + n);
        let commas = memchr::memchr_iter(b',', &self.b[self.i..end]).count();
        let mut out = Vec::with_capacity((commas + 1).min(64));
        loop {
            out.push(self.arg()?);
            match self.next()? {
                b',' => continue,
                b']' => return Some(out),
                _ => return None,
            }
        }
    }

    fn arg(&mut self) -> Option<ArgValue> {
        Some(match self.peek()? {
            b'n' => {
                self.lit(b"null")?;
                ArgValue::Null
            }
            b'"' => ArgValue::Text(self.string()?),
            b'{' => {
                self.lit(b"{\"blob\":")?;
                let blob = self.string()?;
                self.lit(b"}")?;
                ArgValue::Blob(BlobHex { blob })
            }
            b'-' | b'0'..=b'9' => {
                let start = self.i;
                while self
                    .peek()
                    .is_some_and(|c| matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                {
                    self.i += 1;
                }
                let token = &self.s[start..self.i];
                let mut again = Parser {
                    s: token,
                    b: token.as_bytes(),
                    i: 0,
                    plain_text: true,
                };
                match again.integer() {
                    Some(n) if again.i == token.len() => ArgValue::Integer(n),
                    // A real: serde_json's own reading of the number, so that its rounding
                    // is the one every line gets.
                    _ if token.bytes().any(|c| matches!(c, b'.' | b'e' | b'E')) => {
                        ArgValue::Real(match real(token) {
                            Some(r) => r,
                            None => serde_json::from_str::<f64>(token).ok()?,
                        })
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }
}

/// Powers of ten a `f64` holds exactly.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

/// A JSON number with a fraction or an exponent, read with serde_json's own arithmetic (its
/// digits gathered into a `u64` significand, then one multiplication or division by an exact
/// power of ten), for the numbers where that is all serde_json does: a significand within a
/// `u64` and a decimal exponent within ±22. `None` for anything else (serde_json reads it).
fn real(token: &str) -> Option<f64> {
    let b = token.as_bytes();
    let (positive, mut i) = match b.first()? {
        b'-' => (false, 1),
        _ => (true, 0),
    };
    let mut sig: u64 = 0;
    let digits = |i: &mut usize, sig: &mut u64| -> Option<usize> {
        let from = *i;
        while let Some(c @ b'0'..=b'9') = b.get(*i).copied() {
            *sig = sig.checked_mul(10)?.checked_add(u64::from(c - b'0'))?;
            *i += 1;
        }
        Some(*i - from)
    };
    let whole = digits(&mut i, &mut sig)?;
    if whole == 0 || (whole > 1 && b[i - whole] == b'0') {
        return None;
    }
    let mut exp: i32 = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        let fraction = digits(&mut i, &mut sig)?;
        if fraction == 0 {
            return None;
        }
        exp -= fraction as i32;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        let negative = match b.get(i) {
            Some(b'-') => {
                i += 1;
                true
            }
            Some(b'+') => {
                i += 1;
                false
            }
            _ => false,
        };
        let from = i;
        let mut e: i32 = 0;
        while let Some(c @ b'0'..=b'9') = b.get(i).copied() {
            e = e.checked_mul(10)?.checked_add(i32::from(c - b'0'))?;
            i += 1;
        }
        if i == from {
            return None;
        }
        exp = if negative { exp - e } else { exp + e };
    }
    if i != b.len() {
        return None;
    }
    let pow = *POW10.get(exp.unsigned_abs() as usize)?;
    let f = sig as f64;
    let f = if exp >= 0 { f * pow } else { f / pow };
    Some(if positive { f } else { -f })
}

#[cfg(test)]
mod tests;

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

use crate::workload::import::record::{ArgValue, BlobHex, Stamp, StatementRecord};

/// The record of a capture's statement line, or `None`: read the line with serde_json.
pub fn statement(line: &str) -> Option<StatementRecord> {
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
            Field::Expanded => rec.expanded = p.nullable(Parser::string)?,
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
    (p.i == p.b.len() && t_ns && sql).then_some(rec)
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

/// Whether any byte of `b` is below 0x20: eight bytes a step, without a branch per byte.
fn has_control(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    // A byte below 0x20 sets its high bit in `x - 0x20…` where `x` had it clear (exact
    // whether any does, which is all that is asked).
    let below = words.by_ref().fold(0u64, |acc, w| {
        let x = u64::from_le_bytes([w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]]);
        acc | (x.wrapping_sub(ONES * 0x20) & !x)
    });
    below & HIGH != 0 || words.remainder().iter().any(|&c| c < 0x20)
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
        let mut out = String::with_capacity(2 * (self.i - start) + 16);
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
                        ArgValue::Real(serde_json::from_str::<f64>(token).ok()?)
                    }
                    _ => return None,
                }
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::workload::import::LogRecord;

    fn serde(line: &str) -> Option<StatementRecord> {
        match serde_json::from_str::<LogRecord>(line) {
            Ok(LogRecord::Statement(s)) => Some(s),
            _ => None,
        }
    }

    #[test]
    fn a_capture_line_reads_as_serde_json_reads_it() {
        let line = r#"{"statement":{"t_ns":1732000000000000000,"dur_ns":20000,"pid":31337,"tid":31338,"conn":"0x55d0","db":"/a/b.db","sql":"INSERT INTO t VALUES(?,?,?,?,?,?)","expanded":"INSERT INTO t VALUES(1,'it''s \"q\"\n\u00e9',2.5,NULL,X'00ff',-7)","args":[1,"it's \"q\"\n\u00e9 \/ \t",2.5,null,{"blob":"00ff"},-7,1e3,-0.5],"rows":1,"status":101}}"#;
        let fast = statement(line).expect("read by the fast reader");
        assert_eq!(Some(&fast), serde(line).as_ref());
        assert_eq!(
            fast.args.as_ref().unwrap()[1],
            ArgValue::Text("it's \"q\"\né / \t".into())
        );
        assert_eq!(fast.args.as_ref().unwrap()[6], ArgValue::Real(1000.0));
        let nulls = r#"{"statement":{"t_ns":0,"stamp":"end","dur_ns":null,"pid":null,"conn":null,"sql":"","args":[],"status":-3}}"#;
        assert_eq!(statement(nulls), serde(nulls));
        assert_eq!(statement(nulls).unwrap().status, Some(-3));
    }

    #[test]
    fn every_other_shape_is_left_to_serde_json() {
        // A control byte inside a string (serde_json refuses it), wherever it stands.
        for at in [1, 7, 8, 9, 30] {
            let text = format!("{}\t{}", "a".repeat(at), "b".repeat(40 - at));
            let line = format!(r#"{{"statement":{{"t_ns":1,"sql":"{text}"}}}}"#);
            assert_eq!(statement(&line), None, "{line}");
            assert_eq!(serde(&line), None, "{line}");
        }
        for line in [
            r#"{"statement": {"t_ns":1,"sql":"x"}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x","sql":"y"}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x","extra":1}}"#,
            r#"{"statement":{"t_ns":01,"sql":"x"}}"#,
            r#"{"statement":{"t_ns":1.0,"sql":"x"}}"#,
            r#"{"statement":{"t_ns":18446744073709551616,"sql":"x"}}"#,
            r#"{"statement":{"t_ns":1,"sql":"\ud83d\ude00"}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x","args":[-0]}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x","args":[true]}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x","args":[{"blob":"00","x":1}]}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x","args":[9223372036854775808]}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x","args":[-9223372036854775808]}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x","pid":4294967296}}"#,
            r#"{"statement":{"t_ns":1}}"#,
            r#"{"statement":{"t_ns":1,"sql":"x"}} "#,
            r#"{"statement":{}}"#,
            r#"{"schema":{"type":"table","name":"t","sql":"CREATE TABLE t(a)"}}"#,
        ] {
            assert_eq!(statement(line), None, "{line}");
        }
    }
}

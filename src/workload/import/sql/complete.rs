//! Whether SQL text read piece by piece (a statement printed over several log lines) has
//! reached the end of a statement, decided as SQLite's `sqlite3_complete()` decides it: a `;`
//! outside quotes and comments ends a statement, except inside a `CREATE [TEMP] TRIGGER`,
//! whose body's statements end with `;` too and which ends only at `; END ;`.
//!
//! Incremental: each piece is scanned once, whatever the number of pieces, so a statement
//! joined over many lines costs its length and not its length times its lines. The pieces
//! must split the text between lines (a piece starts with the `\n` that ended the one
//! before), so no token but a quote or a block comment continues across pieces.

/// A word's meaning to the statement machine (as `sqlite3_complete` classifies tokens).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Tk {
    Semi,
    Space,
    Other,
    Explain,
    Create,
    Temp,
    Trigger,
    End,
}

/// Statement states, numbered as in `sqlite3_complete`: 1 is "at the start of a statement"
/// (the text so far is whole statements), 5–7 inside a trigger's body.
const START: u8 = 1;
const TRANSITIONS: [[u8; 8]; 8] = [
    // Semi Space Other Explain Create Temp Trigger End
    [1, 0, 2, 3, 4, 2, 2, 2], // 0 nothing yet
    [1, 1, 2, 3, 4, 2, 2, 2], // 1 start
    [1, 2, 2, 2, 2, 2, 2, 2], // 2 normal
    [1, 3, 3, 2, 4, 2, 2, 2], // 3 after EXPLAIN
    [1, 4, 2, 2, 2, 4, 5, 2], // 4 after CREATE [TEMP]
    [6, 5, 5, 5, 5, 5, 5, 5], // 5 in a trigger
    [6, 6, 5, 5, 5, 5, 5, 7], // 6 trigger, after `;`
    [1, 7, 5, 5, 5, 5, 5, 5], // 7 trigger, after `; END`
];

/// A quote or comment that continues into the next piece.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Open {
    None,
    /// Inside a quote closed by this byte (`'`, `"`, `` ` ``, `]`).
    Quote(u8),
    /// Inside `/* … */`.
    Block,
}

/// The scanner's state between pieces.
#[derive(Clone, Copy, Debug)]
pub struct Completion {
    state: u8,
    open: Open,
}

impl Default for Completion {
    fn default() -> Self {
        Self {
            state: 0,
            open: Open::None,
        }
    }
}

fn word(w: &[u8]) -> Tk {
    const WORDS: [(&[u8], Tk); 6] = [
        (b"EXPLAIN", Tk::Explain),
        (b"CREATE", Tk::Create),
        (b"TEMP", Tk::Temp),
        (b"TEMPORARY", Tk::Temp),
        (b"TRIGGER", Tk::Trigger),
        (b"END", Tk::End),
    ];
    WORDS
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(w))
        .map_or(Tk::Other, |(_, t)| *t)
}

fn is_id(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

impl Completion {
    pub fn new() -> Self {
        Self::default()
    }

    /// Whether the text so far ends at the end of a statement (only space and comments after
    /// its `;`), outside any quote or block comment.
    pub fn is_complete(&self) -> bool {
        self.state == START && self.open == Open::None
    }

    fn step(&mut self, t: Tk) {
        self.state = TRANSITIONS[self.state as usize][t as usize];
    }

    /// Scan the next piece of the text.
    pub fn feed(&mut self, piece: &str) {
        let b = piece.as_bytes();
        let mut i = 0;
        while i < b.len() {
            match self.open {
                Open::Quote(q) => match b[i..].iter().position(|&x| x == q) {
                    // A doubled quote inside the quote is the quote character itself: the
                    // scan goes on past it as if the quote closed and opened again.
                    Some(p) => {
                        i += p + 1;
                        self.open = Open::None;
                        self.step(Tk::Other);
                    }
                    None => return,
                },
                Open::Block => match piece[i..].find("*/") {
                    Some(p) => {
                        i += p + 2;
                        self.open = Open::None;
                        self.step(Tk::Space);
                    }
                    None => return,
                },
                Open::None => {
                    let c = b[i];
                    let next = b.get(i + 1).copied();
                    match c {
                        b';' => {
                            self.step(Tk::Semi);
                            i += 1;
                        }
                        b' ' | b'\t' | b'\n' | b'\r' | 0x0c => {
                            self.step(Tk::Space);
                            i += 1;
                        }
                        b'-' if next == Some(b'-') => {
                            self.step(Tk::Space);
                            i = b[i..]
                                .iter()
                                .position(|&x| x == b'\n')
                                .map_or(b.len(), |p| i + p);
                        }
                        b'/' if next == Some(b'*') => {
                            self.open = Open::Block;
                            i += 2;
                        }
                        b'\'' | b'"' | b'`' => {
                            self.open = Open::Quote(c);
                            i += 1;
                        }
                        b'[' => {
                            self.open = Open::Quote(b']');
                            i += 1;
                        }
                        c if is_id(c) => {
                            let n = b[i..].iter().take_while(|&&x| is_id(x)).count();
                            self.step(word(&b[i..i + n]));
                            i += n;
                        }
                        _ => {
                            self.step(Tk::Other);
                            i += 1;
                        }
                    }
                }
            }
        }
    }
}

/// Whether `sql` is whole statements, as [`Completion`] decides (`sqlite3_complete`).
pub fn is_complete(sql: &str) -> bool {
    let mut c = Completion::new();
    c.feed(sql);
    c.is_complete()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// SQLite's own answer.
    fn sqlite_complete(sql: &str) -> bool {
        let c = std::ffi::CString::new(sql).unwrap();
        // SAFETY: c is a NUL-terminated string that outlives the call.
        unsafe { rusqlite::ffi::sqlite3_complete(c.as_ptr()) != 0 }
    }

    const CASES: &[&str] = &[
        "SELECT 1;",
        "SELECT 1",
        "SELECT ';';",
        "SELECT ';'",
        "SELECT 1; -- 5 ns",
        "SELECT 1 /* ; */",
        "SELECT 1 /* ; */;",
        "SELECT \"a;b\";",
        "SELECT [a;b];",
        "SELECT `a;b`;",
        "SELECT 'it''s';",
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO b VALUES (1);",
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO b VALUES (1);\nEND;",
        "CREATE TRIGGER t AFTER INSERT ON a BEGIN\n  INSERT INTO b VALUES (1);\nEND; -- 1000 ns",
        "create temp trigger t after insert on a begin select case when 1 then 2 end; end;",
        "CREATE TEMPORARY TRIGGER t AFTER INSERT ON a BEGIN SELECT CASE WHEN 1 THEN 2 END;",
        "EXPLAIN CREATE TRIGGER t AFTER INSERT ON a BEGIN SELECT 1; END;",
        "EXPLAIN QUERY PLAN SELECT 1;",
        "CREATE TABLE trigger_log(a); ",
        "CREATE TABLE t(end);",
        "CREATE TRIGGER t BEFORE DELETE ON a BEGIN DELETE FROM b; /* c */ END /* d */ ;",
        "CREATE TRIGGER t BEFORE DELETE ON a BEGIN DELETE FROM b; END",
        "SELECT 1; CREATE TRIGGER t BEFORE DELETE ON a BEGIN DELETE FROM b;",
        "",
        "   ",
        "-- only a comment",
        ";",
        "SELECT x'00ff';",
        "SELECT 'open",
        "SELECT \"open;",
        "/* open ;",
    ];

    #[test]
    fn agrees_with_sqlite3_complete() {
        for sql in CASES {
            assert_eq!(is_complete(sql), sqlite_complete(sql), "{sql:?}");
        }
    }

    #[test]
    fn pieces_split_at_lines_give_the_whole_texts_answer() {
        for sql in CASES {
            let mut c = Completion::new();
            for (i, line) in sql.split('\n').enumerate() {
                if i > 0 {
                    c.feed("\n");
                }
                c.feed(line);
            }
            assert_eq!(c.is_complete(), is_complete(sql), "{sql:?}");
        }
    }
}

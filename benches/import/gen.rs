//! The logs the import bench reads, generated to the shapes real captures have:
//!
//! * `jsonl`: what `pocketbench capture` writes (the preload library's line: `t_ns`, `dur_ns`,
//!   `pid`, `tid`, `conn`, `db`, `sql`, `expanded`, typed `args`, `rows`, `status`) for a
//!   mail-like app on four connections: the setup's PRAGMA and DDL, then write transactions
//!   of long INSERTs (12 typed arguments: text with quotes and a newline, reals, a blob) and
//!   UPDATEs, and reads with a join, each with its expanded form.
//! * `jsonl-short`: the same capture of short statements (a key lookup, a one-column update).
//! * `logcat`: `adb logcat -v threadtime -v usec` of an Android app with the statement tags on:
//!   `SQLiteStatements` (expanded SQL) then `SQLiteTime` (prepared SQL, `took N ms`) per
//!   statement on four threads, a statement whose text holds a newline printed over two lines,
//!   transactions, and other apps' lines between them (skipped).

use std::fmt::Write as _;
use std::io::{BufWriter, Write};
use std::path::Path;

/// What was written: lines, bytes, statements (what the import should convert).
pub struct Generated {
    pub lines: u64,
    pub bytes: u64,
}

const DB: &str = "/home/user/.local/share/mailapp/mail.db";
const ANDROID_DB: &str = "/data/user/0/com.example.mail/databases/mail.db";

/// A JSON string literal (the capture's escaping: `"` and `\` escaped, control bytes `\u00XX`).
fn json(s: &str) -> String {
    let mut o = String::with_capacity(s.len() + 2);
    o.push('"');
    for c in s.chars() {
        match c {
            '"' | '\\' => {
                o.push('\\');
                o.push(c);
            }
            c if (c as u32) < 0x20 => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// One statement of the generated app: prepared SQL, expanded SQL, arguments as JSON.
struct Stmt {
    sql: String,
    expanded: String,
    args: Vec<String>,
    writes: bool,
}

fn lit_text(s: &str) -> String {
    format!("'{}'", s.replace('\'', "''"))
}

fn stmt(sql: &str, args: &[(String, String)], writes: bool) -> Stmt {
    // Expanded: each `?` replaced by its literal, as sqlite3_expanded_sql does.
    let mut expanded = String::with_capacity(sql.len() + 64);
    let mut it = args.iter();
    for c in sql.chars() {
        match c {
            '?' => expanded.push_str(&it.next().expect("an argument per parameter").1),
            c => expanded.push(c),
        }
    }
    Stmt {
        sql: sql.to_string(),
        expanded,
        args: args.iter().map(|a| a.0.clone()).collect(),
        writes,
    }
}

fn int(v: i64) -> (String, String) {
    (v.to_string(), v.to_string())
}

fn real(v: f64) -> (String, String) {
    (format!("{v:?}"), format!("{v:?}"))
}

fn text(s: &str) -> (String, String) {
    (json(s), lit_text(s))
}

fn blob(b: &[u8]) -> (String, String) {
    let hex: String = b.iter().map(|x| format!("{x:02x}")).collect();
    (format!("{{\"blob\":\"{hex}\"}}"), format!("X'{hex}'"))
}

const WORDS: &[&str] = &[
    "meeting",
    "notes",
    "invoice",
    "the",
    "quarterly",
    "report",
    "lunch",
    "Friday",
    "travel",
    "plans",
    "draft",
    "review",
    "budget",
    "photos",
    "from",
    "weekend",
    "update",
    "schedule",
];

fn words(i: u64, n: usize) -> String {
    (0..n)
        .map(|k| WORDS[((i.wrapping_mul(2_654_435_761) >> 7) as usize + k * 7) % WORDS.len()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// The `i`th statement of the long-statement app, on connection `conn` (0 is the reader).
fn long_stmt(i: u64) -> (usize, Stmt) {
    let step = i % 12;
    let tx = i / 12;
    let writer = 1 + (tx % 3) as usize;
    match step {
        0 => (writer, stmt("BEGIN IMMEDIATE", &[], false)),
        1..=4 => {
            let id = tx * 4 + step;
            let body = format!(
                "Hi {},\nabout \"{}\": {} — see you at {}:{:02}. It's {}.",
                WORDS[(id % 18) as usize],
                words(id, 3),
                words(id + 1, 14),
                9 + id % 8,
                id % 60,
                words(id + 2, 2)
            );
            let sql = "INSERT INTO messages(thread_id, sender, recipient, subject, body, sent_at, received_at, flags, size, score, labels, digest) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)";
            let digest: Vec<u8> = (0..16).map(|k| (id.wrapping_mul(31) + k) as u8).collect();
            let args = [
                int((id % 500) as i64),
                text(&format!("user{}@example.org", id % 97)),
                text(&format!("friend{}@example.com", id % 89)),
                text(&words(id, 5)),
                text(&body),
                int(1_700_000_000_000 + id as i64 * 1000),
                int(1_700_000_000_500 + id as i64 * 1000),
                int((id % 8) as i64),
                int(512 + (id % 4096) as i64),
                real((id % 1000) as f64 / 7.0),
                text("inbox,unread"),
                blob(&digest),
            ];
            (writer, stmt(sql, &args, true))
        }
        5 | 6 => {
            let sql = "UPDATE messages SET flags = flags | ?, labels = ?, received_at = ? WHERE thread_id = ? AND sent_at < ?";
            let args = [
                int(1 << (step - 4)),
                text("inbox,read"),
                int(1_700_000_000_000 + tx as i64),
                int((tx % 500) as i64),
                int(1_700_000_000_000 + tx as i64 * 4000),
            ];
            (writer, stmt(sql, &args, true))
        }
        7 => (writer, stmt("COMMIT", &[], false)),
        _ => {
            let sql = "SELECT m.id, m.thread_id, m.subject, m.sent_at, m.flags, m.size, c.display_name, c.photo_uri FROM messages AS m LEFT JOIN contacts AS c ON c.address = m.sender WHERE m.thread_id = ? AND m.flags & ? = 0 ORDER BY m.sent_at DESC LIMIT ?";
            let args = [int((i % 500) as i64), int(4), int(50)];
            (0, stmt(sql, &args, false))
        }
    }
}

/// The `i`th statement of the short-statement app.
fn short_stmt(i: u64) -> (usize, Stmt) {
    let conn = (i % 4) as usize;
    match i % 8 {
        0 => (
            conn,
            stmt(
                "UPDATE kv SET v = ? WHERE k = ?",
                &[int(i as i64), int((i % 1000) as i64)],
                true,
            ),
        ),
        _ => (
            conn,
            stmt(
                "SELECT v FROM kv WHERE k = ?",
                &[int((i % 1000) as i64)],
                false,
            ),
        ),
    }
}

const SETUP: &[&str] = &[
    "PRAGMA journal_mode = WAL",
    "CREATE TABLE IF NOT EXISTS contacts(address TEXT PRIMARY KEY, display_name TEXT, photo_uri TEXT)",
    "CREATE TABLE IF NOT EXISTS messages(id INTEGER PRIMARY KEY, thread_id INTEGER NOT NULL, sender TEXT, recipient TEXT, subject TEXT, body TEXT, sent_at INTEGER, received_at INTEGER, flags INTEGER DEFAULT 0, size INTEGER, score REAL, labels TEXT, digest BLOB)",
    "CREATE INDEX IF NOT EXISTS messages_thread ON messages(thread_id, sent_at)",
    "CREATE TABLE IF NOT EXISTS kv(k INTEGER PRIMARY KEY, v INTEGER)",
];

/// A capture's statement log of `lines` lines (`short`: the short-statement app).
pub fn jsonl(path: &Path, lines: u64, short: bool) -> Generated {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let mut bytes = 0u64;
    let conns = [
        "0x55d0c8a2f2a8",
        "0x55d0c8a31f48",
        "0x55d0c8a34be8",
        "0x55d0c8a37888",
    ];
    let mut line = String::with_capacity(4096);
    let mut t = 1_732_000_000_000_000_000u64;
    for n in 0..lines {
        let (conn, s) = if (n as usize) < SETUP.len() {
            (0, stmt(SETUP[n as usize], &[], true))
        } else if short {
            short_stmt(n)
        } else {
            long_stmt(n - SETUP.len() as u64)
        };
        let dur = 20_000 + (n * 7919) % 400_000;
        t += 30_000 + (n * 104_729) % 900_000;
        line.clear();
        let _ = write!(
            line,
            "{{\"statement\":{{\"t_ns\":{t},\"dur_ns\":{dur},\"pid\":31337,\"tid\":{},\"conn\":\"{}\",\"db\":{},\"sql\":{}",
            31337 + conn,
            conns[conn],
            json(DB),
            json(&s.sql)
        );
        let _ = write!(line, ",\"expanded\":{}", json(&s.expanded));
        if !s.args.is_empty() {
            let _ = write!(line, ",\"args\":[{}]", s.args.join(","));
        }
        if s.writes {
            let _ = write!(line, ",\"rows\":{}", 1);
        }
        let status = if s.writes || s.args.is_empty() {
            101
        } else {
            0
        };
        let _ = writeln!(line, ",\"status\":{status}}}}}");
        bytes += line.len() as u64;
        w.write_all(line.as_bytes()).unwrap();
    }
    w.flush().unwrap();
    Generated { lines, bytes }
}

fn stamp(us: u64) -> String {
    format!(
        "11-27 {:02}:{:02}:{:02}.{:06}",
        us / 3_600_000_000 % 24,
        us / 60_000_000 % 60,
        us / 1_000_000 % 60,
        us % 1_000_000
    )
}

/// A threadtime logcat (with `-v usec`) of at least `lines` lines, cut at a statement's end.
pub fn logcat(path: &Path, lines: u64) -> Generated {
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).unwrap());
    let (mut bytes, mut written) = (0u64, 0u64);
    let mut block = String::with_capacity(8192);
    let tids = [4242u64, 4260, 4261, 4262];
    let mut us = 0u64;
    let mut i = 0u64;
    while written < lines {
        block.clear();
        let (conn, s) = if (i as usize) < SETUP.len() {
            (0, stmt(SETUP[i as usize], &[], true))
        } else {
            long_stmt(i - SETUP.len() as u64)
        };
        let tid = tids[conn];
        us += 40 + (i * 104_729) % 900;
        let took_us = 20 + (i * 7919) % 400;
        let (t0, t1) = (stamp(us), stamp(us + took_us));
        // The framework logs the expanded SQL (its lines split where the text has newlines),
        // then the prepared SQL with the time it took.
        let mut parts = s.expanded.split('\n');
        let first = parts.next().unwrap_or("");
        let _ = writeln!(
            block,
            "{t0}  4242  {tid} V SQLiteStatements: {ANDROID_DB}: \"{first}"
        );
        for p in parts {
            let _ = writeln!(block, "{t0}  4242  {tid} V SQLiteStatements: {p}");
        }
        block.pop();
        block.push_str("\"\n");
        let _ = writeln!(
            block,
            "{t1}  4242  {tid} V SQLiteTime: {ANDROID_DB}: \"{}\" took {}.{:03} ms",
            s.sql,
            took_us / 1000,
            took_us % 1000
        );
        if i.is_multiple_of(3) {
            let _ = writeln!(
                block,
                "{t1}  1000  1012 D ActivityManager: Slow operation: {} ms so far, now at startProcess: done updating battery stats",
                i % 97
            );
        }
        if i.is_multiple_of(5) {
            let _ = writeln!(
                block,
                "{t1}  4242  4242 I Choreographer: Skipped {} frames!  The application may be doing too much work on its main thread.",
                i % 61
            );
        }
        written += block.matches('\n').count() as u64;
        bytes += block.len() as u64;
        w.write_all(block.as_bytes()).unwrap();
        i += 1;
    }
    w.flush().unwrap();
    Generated {
        lines: written,
        bytes,
    }
}

//! `trace stats`: what an app's recorded activity looks like, from a trace (imported or
//! generated, any version) or straight from a log: where it came from and what was dropped;
//! the statement mix; reads and writes as SQLite itself classifies them
//! (`sqlite3_stmt_readonly` on an in-memory database holding the schema); transactions;
//! the top statements by count and by time (fingerprints: literals as `?`); inter-arrival
//! times with bursts and idle gaps; connections in flight; the durations the source measured;
//! and how long a replay at the recorded pace takes.
//!
//! One pass, constant memory apart from one entry per distinct fingerprint (at most
//! [`MAX_FINGERPRINTS`]) and per connection.

pub mod file;

use crate::stats::{LatencyHistogram, LatencySummary};
use crate::workload::import::sql::lexer;
use crate::workload::import::sql::sqltext::{txn_step, TxnStep};
use serde::Serialize;
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

/// The statistics' maps, keyed by statement text or connection: a fast hasher (the keys are
/// the log's own, and no output depends on their order).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;
use std::rc::Rc;

/// Distinct statement shapes tracked; statements of further shapes count as `(other)`.
pub const MAX_FINGERPRINTS: usize = 100_000;
/// What statements of further shapes count as.
const OTHER: &str = "(other)";
/// Top statements listed.
pub const TOP: usize = 10;
/// Statement texts whose reading ([`Reading`]) is kept, and the longest text kept: past that
/// many the memory is cleared and starts again (texts of a prepared statement repeat; texts
/// with their literals written in mostly do not).
const READINGS: usize = 4_096;
const READING_MAX_SQL: usize = 4_096;
/// Arrivals closer than this belong to one burst.
pub const BURST_GAP_NS: u64 = 10_000_000;
/// A gap at least this long is idle time.
pub const IDLE_GAP_NS: u64 = 1_000_000_000;

/// One statement as the statistics see it.
#[derive(Clone, Copy, Debug)]
pub struct Event<'a> {
    /// The connection (or thread) the statement ran on, as the source names it.
    pub conn: &'a str,
    pub start_ns: u64,
    pub dur_ns: Option<u64>,
    /// The statement's text (for a key-value operation: its kind, `READ`, `UPDATE`, …).
    pub sql: &'a str,
    /// Whether it only reads, when the caller knows (key-value operations); `None`: ask SQLite.
    pub readonly: Option<bool>,
}

/// How SQLite classifies a statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Read,
    Write,
    Transaction,
    /// The statement does not prepare on the schema known (a table the log never created).
    Unknown,
}

/// What the statistics read of a statement's text.
#[derive(Clone)]
struct Reading {
    shape: Rc<str>,
    verb: Rc<str>,
    step: TxnStep,
    /// Where its shape is counted in [`Collector::shape_counts`], and whether that is the
    /// shape's own entry (not `(other)`).
    slot: usize,
    own: bool,
}

#[derive(Default)]
struct Shape {
    /// The first word of its texts (empty for `(other)`).
    verb: Rc<str>,
    /// Its class once [`Collector::classes`] holds it (for a shape of its own).
    class: Option<Class>,
    count: u64,
    total_ns: u64,
    example: String,
}

#[derive(Default)]
struct Txn {
    depth: u32,
    start_ns: u64,
    statements: u64,
}

/// Accumulates the statistics of a stream of [`Event`]s.
pub struct Collector {
    db: rusqlite::Connection,
    classes: HashMap<String, Class>,
    readings: HashMap<Box<str>, Reading>,
    /// Where the fingerprint of the statement being read is made.
    fingerprint: String,
    /// Each shape counted (or `(other)`), and where in `shape_counts`.
    shapes: HashMap<Rc<str>, usize>,
    shape_counts: Vec<Shape>,
    mix: BTreeMap<String, u64>,
    rw: BTreeMap<&'static str, u64>,
    txns: HashMap<String, Txn>,
    txn_count: u64,
    txn_rollbacks: u64,
    txn_sizes: LatencyHistogram,
    txn_durations: LatencyHistogram,
    gaps: LatencyHistogram,
    durations: LatencyHistogram,
    in_flight: BinaryHeap<Reverse<u64>>,
    max_in_flight: u64,
    conns: HashMap<String, u64>,
    first_start: Option<u64>,
    last_start: u64,
    last_end: u64,
    bursts: u64,
    burst_len: u64,
    longest_burst: u64,
    idle_gaps: u64,
    idle_ns: u64,
    longest_idle_ns: u64,
    statements: u64,
    busy_ns: u64,
    out_of_order: u64,
}

/// The statistics, as printed and as `--json` writes them.
#[derive(Debug, Serialize)]
pub struct Stats {
    pub source: BTreeMap<String, String>,
    pub lines: Option<u64>,
    pub skipped_lines: Option<u64>,
    pub dropped: BTreeMap<String, u64>,
    pub statements: u64,
    /// By first keyword (`SELECT`, `INSERT`, `BEGIN`, …).
    pub mix: BTreeMap<String, u64>,
    /// `read`, `write`, `transaction`, `unknown` (did not prepare on the known schema).
    pub read_write: BTreeMap<&'static str, u64>,
    pub transactions: Transactions,
    pub top_by_count: Vec<Top>,
    pub top_by_time: Vec<Top>,
    /// Start-to-start gaps, µs.
    pub inter_arrival_us: LatencySummary,
    pub bursts: Bursts,
    pub connections: u64,
    pub max_in_flight: u64,
    /// Durations the source measured, µs.
    pub durations_us: LatencySummary,
    /// First start to last end at the recorded pace (what a replay at `--speed 1` takes at
    /// least), and the part of it statements were running.
    pub span_ns: u64,
    pub busy_ns: u64,
    /// Statements stamped earlier than the one before them (gaps counted as 0).
    pub out_of_order: u64,
}

#[derive(Debug, Default, Serialize)]
pub struct Transactions {
    pub count: u64,
    pub rolled_back: u64,
    /// Statements per transaction (BEGIN and COMMIT included).
    pub statements_mean: f64,
    pub statements_max: u64,
    /// Duration from BEGIN's start to COMMIT's end, µs.
    pub duration_us: LatencySummary,
}

#[derive(Debug, Serialize)]
pub struct Top {
    pub fingerprint: String,
    pub count: u64,
    pub total_ns: u64,
    pub example: String,
}

#[derive(Debug, Default, Serialize)]
pub struct Bursts {
    /// Runs of statements each within `BURST_GAP_NS` of the one before.
    pub count: u64,
    pub longest: u64,
    /// Gaps of at least `IDLE_GAP_NS`.
    pub idle_gaps: u64,
    pub idle_ns: u64,
    pub longest_idle_ns: u64,
}

impl Default for Collector {
    fn default() -> Self {
        Self::new()
    }
}

impl Collector {
    pub fn new() -> Collector {
        let db = rusqlite::Connection::open_in_memory()
            .unwrap_or_else(|e| panic!("an in-memory SQLite database opens: {e}"));
        crate::workload::untrusted::guard_scratch(&db);
        Collector {
            db,
            classes: HashMap::default(),
            readings: HashMap::default(),
            fingerprint: String::new(),
            shapes: HashMap::default(),
            shape_counts: Vec::new(),
            mix: BTreeMap::new(),
            rw: BTreeMap::new(),
            txns: HashMap::default(),
            txn_count: 0,
            txn_rollbacks: 0,
            txn_sizes: LatencyHistogram::default(),
            txn_durations: LatencyHistogram::default(),
            gaps: LatencyHistogram::default(),
            durations: LatencyHistogram::default(),
            in_flight: BinaryHeap::new(),
            max_in_flight: 0,
            conns: HashMap::default(),
            first_start: None,
            last_start: 0,
            last_end: 0,
            bursts: 0,
            burst_len: 0,
            longest_burst: 0,
            idle_gaps: 0,
            idle_ns: 0,
            longest_idle_ns: 0,
            statements: 0,
            busy_ns: 0,
            out_of_order: 0,
        }
    }

    /// A schema statement (CREATE …) the classification prepares statements against.
    pub fn schema(&mut self, sql: &str) {
        let _ = self.db.execute_batch(sql);
    }

    /// What the statistics read of `sql`: remembered for the text (when it may come again: a
    /// parameter, or no literal written in), else from its fingerprint, made in one reused
    /// buffer and looked up by shape (the verb is the shape's: texts of one shape share their
    /// first word).
    fn reading(&mut self, sql: &str) -> Reading {
        if let Some(r) = self.readings.get(sql) {
            return r.clone();
        }
        let repeats = lexer::fingerprint_into(sql, &mut self.fingerprint);
        let step = txn_step(sql);
        let r = match self.shapes.get_key_value(self.fingerprint.as_str()) {
            Some((shape, &slot)) => Reading {
                shape: shape.clone(),
                verb: self.shape_counts[slot].verb.clone(),
                step,
                slot,
                own: true,
            },
            None => {
                let shape: Rc<str> = self.fingerprint.as_str().into();
                let verb: Rc<str> = lexer::verb(sql).into();
                let (slot, own) = self.slot(&shape, &verb);
                Reading {
                    slot,
                    own,
                    shape,
                    verb,
                    step,
                }
            }
        };
        if repeats && sql.len() <= READING_MAX_SQL {
            if self.readings.len() >= READINGS {
                self.readings.clear();
            }
            self.readings.insert(sql.into(), r.clone());
        }
        r
    }

    /// Where statements of `shape` (not counted yet, first word `verb`) are counted: an entry
    /// of its own while there is room for one more, else `(other)`; and whether it is its own.
    fn slot(&mut self, shape: &Rc<str>, verb: &Rc<str>) -> (usize, bool) {
        let own = self.shapes.len() < MAX_FINGERPRINTS;
        let (key, verb) = if own {
            (shape.clone(), verb.clone())
        } else {
            // Not a fingerprint (those have no lower-case letter); its texts' verbs vary.
            (Rc::from(OTHER), Rc::from(""))
        };
        if let Some(at) = self.shapes.get(&key) {
            return (*at, own);
        }
        self.shapes.insert(key, self.shape_counts.len());
        self.shape_counts.push(Shape {
            verb,
            ..Shape::default()
        });
        (self.shape_counts.len() - 1, own)
    }

    fn class(&mut self, sql: &str, r: &Reading) -> Class {
        if !matches!(r.step, TxnStep::None) {
            return Class::Transaction;
        }
        let (shape, verb) = (&*r.shape, &*r.verb);
        // The shape's entry holds its class from when `classes` does (no lookup by text).
        if let Some(c) = self.shape_counts[r.slot].class.filter(|_| r.own) {
            return c;
        }
        if let Some(c) = self.classes.get(shape) {
            return *c;
        }
        let c = match self.db.prepare(sql) {
            Ok(stmt) if stmt.readonly() => Class::Read,
            Ok(_) => Class::Write,
            Err(_) => Class::Unknown,
        };
        if matches!(verb, "CREATE" | "DROP" | "ALTER") {
            // Keep the schema as the app changes it; not cached (the next one may differ).
            let _ = self.db.execute_batch(sql);
            return c;
        }
        if c != Class::Unknown && self.classes.len() < MAX_FINGERPRINTS {
            self.classes.insert(shape.to_string(), c);
            if r.own {
                self.shape_counts[r.slot].class = Some(c);
            }
        }
        c
    }

    pub fn add(&mut self, e: Event) {
        self.statements += 1;
        let r = self.reading(e.sql);
        match self.mix.get_mut(&*r.verb) {
            Some(n) => *n += 1,
            None => {
                self.mix.insert(r.verb.to_string(), 1);
            }
        }
        let class = match e.readonly {
            Some(true) => Class::Read,
            Some(false) => Class::Write,
            None => self.class(e.sql, &r),
        };
        let name = match class {
            Class::Read => "read",
            Class::Write => "write",
            Class::Transaction => "transaction",
            Class::Unknown => "unknown",
        };
        *self.rw.entry(name).or_default() += 1;
        let dur = e.dur_ns.unwrap_or(0);
        if let Some(d) = e.dur_ns {
            self.durations.record(d);
        }
        self.busy_ns += dur;
        let s = &mut self.shape_counts[r.slot];
        s.count += 1;
        s.total_ns += dur;
        if s.example.is_empty() {
            s.example = e.sql.chars().take(200).collect();
        }
        self.arrival(e.start_ns, dur);
        self.transaction(&e, dur, &r.step);
        match self.conns.get_mut(e.conn) {
            Some(n) => *n += 1,
            None => {
                self.conns.insert(e.conn.to_string(), 1);
            }
        }
    }

    fn arrival(&mut self, start: u64, dur: u64) {
        match self.first_start {
            None => {
                self.first_start = Some(start);
                self.bursts = 1;
                self.burst_len = 1;
            }
            Some(_) => {
                let gap = start.checked_sub(self.last_start).unwrap_or_else(|| {
                    self.out_of_order += 1;
                    0
                });
                self.gaps.record(gap);
                if gap < BURST_GAP_NS {
                    self.burst_len += 1;
                } else {
                    self.bursts += 1;
                    self.burst_len = 1;
                }
                if gap >= IDLE_GAP_NS {
                    self.idle_gaps += 1;
                    self.idle_ns += gap;
                    self.longest_idle_ns = self.longest_idle_ns.max(gap);
                }
            }
        }
        self.longest_burst = self.longest_burst.max(self.burst_len);
        self.last_start = self.last_start.max(start);
        self.last_end = self.last_end.max(start + dur);
        while self
            .in_flight
            .peek()
            .is_some_and(|Reverse(end)| *end <= start)
        {
            self.in_flight.pop();
        }
        self.in_flight.push(Reverse(start + dur));
        self.max_in_flight = self.max_in_flight.max(self.in_flight.len() as u64);
    }

    fn transaction(&mut self, e: &Event, dur: u64, step: &TxnStep) {
        if !self.txns.contains_key(e.conn) {
            self.txns.insert(e.conn.to_string(), Txn::default());
        }
        let Some(t) = self.txns.get_mut(e.conn) else {
            return;
        };
        if t.depth > 0 {
            t.statements += 1;
        }
        let opens = matches!(step, TxnStep::Begin | TxnStep::Savepoint(_));
        if opens {
            if t.depth == 0 {
                t.start_ns = e.start_ns;
                t.statements = 1;
            }
            t.depth += 1;
            return;
        }
        let closes_all = match step {
            TxnStep::Commit | TxnStep::Rollback => t.depth > 0,
            TxnStep::Release(_) => t.depth == 1,
            _ => false,
        };
        if matches!(step, TxnStep::Release(_)) && t.depth > 1 {
            t.depth -= 1;
        }
        if closes_all {
            let (n, took) = (t.statements, (e.start_ns + dur).saturating_sub(t.start_ns));
            t.depth = 0;
            self.txn_count += 1;
            if matches!(step, TxnStep::Rollback) {
                self.txn_rollbacks += 1;
            }
            self.txn_sizes.record(n * 1000);
            self.txn_durations.record(took);
        }
    }

    /// The statistics so far; `source` and the line counts come from the caller.
    pub fn finish(self, source: BTreeMap<String, String>) -> Stats {
        let top = |by_time: bool| {
            let mut v: Vec<(&Rc<str>, &Shape)> = self
                .shapes
                .iter()
                .map(|(k, at)| (k, &self.shape_counts[*at]))
                .collect();
            v.sort_by_key(|(k, s)| {
                (
                    Reverse(if by_time { s.total_ns } else { s.count }),
                    (*k).clone(),
                )
            });
            v.into_iter()
                .take(TOP)
                .map(|(k, s)| Top {
                    fingerprint: k.to_string(),
                    count: s.count,
                    total_ns: s.total_ns,
                    example: s.example.clone(),
                })
                .collect()
        };
        let sizes = self.txn_sizes.summary();
        Stats {
            source,
            lines: None,
            skipped_lines: None,
            dropped: BTreeMap::new(),
            statements: self.statements,
            mix: self.mix.clone(),
            read_write: self.rw.clone(),
            transactions: Transactions {
                count: self.txn_count,
                rolled_back: self.txn_rollbacks,
                statements_mean: sizes.mean,
                statements_max: sizes.max.round() as u64,
                duration_us: self.txn_durations.summary(),
            },
            top_by_count: top(false),
            top_by_time: top(true),
            inter_arrival_us: self.gaps.summary(),
            bursts: Bursts {
                count: if self.statements == 0 { 0 } else { self.bursts },
                longest: self.longest_burst,
                idle_gaps: self.idle_gaps,
                idle_ns: self.idle_ns,
                longest_idle_ns: self.longest_idle_ns,
            },
            connections: self.conns.len() as u64,
            max_in_flight: self.max_in_flight,
            durations_us: self.durations.summary(),
            span_ns: self.first_start.map_or(0, |f| self.last_end - f),
            busy_ns: self.busy_ns,
            out_of_order: self.out_of_order,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn ev<'a>(conn: &'a str, start_ms: u64, dur_ms: u64, sql: &'a str) -> Event<'a> {
        Event {
            conn,
            start_ns: start_ms * MS,
            dur_ns: Some(dur_ms * MS),
            sql,
            readonly: None,
        }
    }

    #[test]
    fn two_connections_overlap_and_a_savepoint_rolls_back() {
        let mut c = Collector::new();
        c.schema("CREATE TABLE t(a INTEGER PRIMARY KEY, b TEXT)");
        for e in [
            ev("ui", 0, 10, "SELECT b FROM t WHERE a = 1"),
            ev("bg", 5, 10, "SAVEPOINT s1"),
            ev("bg", 16, 1, "INSERT INTO t VALUES(2, 'x')"),
            ev("bg", 18, 2, "ROLLBACK"),
            ev("ui", 1_500, 1, "SELECT b FROM t WHERE a = 7"),
            ev("ui", 1_501, 1, "SELECT nope FROM missing"),
        ] {
            c.add(e);
        }
        let s = c.finish(BTreeMap::new());
        assert_eq!(s.statements, 6);
        assert_eq!(
            s.read_write,
            BTreeMap::from([
                ("read", 2),
                ("transaction", 2),
                ("unknown", 1),
                ("write", 1)
            ])
        );
        assert_eq!((s.transactions.count, s.transactions.rolled_back), (1, 1));
        assert_eq!(s.transactions.statements_max, 3);
        assert_eq!(s.transactions.duration_us.mean, 15_000.0, "5 ms to 20 ms");
        assert_eq!(
            s.max_in_flight, 2,
            "the savepoint starts while the read runs"
        );
        assert_eq!(s.connections, 2);
        // Gaps 5, 11, 2, 1482, 1 ms: bursts split at gaps of 10 ms or more.
        assert_eq!((s.bursts.count, s.bursts.longest), (3, 2));
        assert_eq!((s.bursts.idle_gaps, s.bursts.idle_ns), (1, 1_482 * MS));
        assert_eq!(s.span_ns, 1_502 * MS);
        assert_eq!(s.busy_ns, 25 * MS);
        assert_eq!(s.top_by_count[0].fingerprint, "SELECT B FROM T WHERE A = ?");
        assert_eq!(s.top_by_count[0].count, 2);
        // 10 + 1 ms of the two reads, then the savepoint's 10 ms.
        assert_eq!(s.top_by_time[0].total_ns, 11 * MS);
        assert_eq!(s.top_by_time[1].fingerprint, "SAVEPOINT S1");
    }
}

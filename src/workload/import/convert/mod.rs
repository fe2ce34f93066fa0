//! The conversion from a statement log ([`LogRecord`](crate::workload::import::LogRecord)s,
//! whichever front end read them) to a replayable trace: the rules live here once. It reads the log
//! twice, in constant memory apart from a bounded reorder buffer: a first pass counts statements
//! per database and keeps the chosen database's schema records; a second converts, writing a
//! version 2 work file (the two are one read where [`onepass`](super::onepass) can guess the
//! database); [`pipeline`](super::pipeline) then copies that into the final trace (dropping what
//! `--dangling drop` and `--drop-failing` remove, with the final header).

use crate::error::{Error, Result};
use crate::limits::MAX_CONNECTIONS;
use crate::workload::import::record::{blob_bytes, ArgValue, StatementRecord};
use crate::workload::import::sql::sqltext::{
    created_object, inline_args, pragma_setting, txn_step, TxnStep,
};
use crate::workload::model::DataModel;
use crate::workload::op::{Op, Recorded, SqlValue, TimedOp};
use crate::workload::trace::reader::check_op;
use std::collections::{BTreeMap, BinaryHeap, HashMap, HashSet, VecDeque};

mod survey;
pub use survey::Survey;

/// The conversion's per-statement maps (by connection): a fast hasher, no order depends on it.
type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// How arguments are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ArgsMode {
    /// Statements with typed bound arguments (trace version 2).
    Bind,
    /// Arguments written into the SQL as SQLite literals.
    Inline,
}

/// What becomes of a transaction the log (or the window) ends inside.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Dangling {
    Commit,
    Rollback,
    Drop,
}

/// The conversion rules' settings.
#[derive(Clone, Debug)]
pub struct Rules {
    pub args: ArgsMode,
    pub dangling: Dangling,
    pub merge_connections: bool,
    /// Keep statements starting in [from, to) ns after the log's first statement.
    pub window: Option<(u64, u64)>,
    /// Cut every start-to-start gap above this.
    pub max_gap_ns: Option<u64>,
    /// Divide every offset, delay and duration by this.
    pub speed: f64,
}

/// Statements reordered by start time within this span, or this many, before they are
/// converted (end-stamped sources log statements in completion order).
const REORDER_NS: u64 = 5_000_000_000;
const REORDER_MAX: usize = 65_536;

/// A log's argument as the value bound on replay.
pub fn value(a: &ArgValue) -> SqlValue {
    match a {
        ArgValue::Null => SqlValue::Null,
        ArgValue::Integer(i) => SqlValue::Integer(*i),
        ArgValue::Real(r) => SqlValue::Real(*r),
        ArgValue::Text(t) => SqlValue::Text(t.clone()),
        ArgValue::Blob(b) => SqlValue::Blob(blob_bytes(&b.blob).unwrap_or_default()),
    }
}

/// [`value`], taking the argument (its text moves, not copied).
fn into_value(a: ArgValue) -> SqlValue {
    match a {
        ArgValue::Text(t) => SqlValue::Text(t),
        a => value(&a),
    }
}

/// A statement waiting in the reorder buffer: its start, its place in the log, and itself
/// (boxed, so that the heap moves a pointer and not the record).
struct Queued(u64, u64, Box<StatementRecord>);
impl PartialEq for Queued {
    fn eq(&self, o: &Self) -> bool {
        (self.0, self.1) == (o.0, o.1)
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Queued {
    /// Reversed: the heap pops the earliest start first.
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (o.0, o.1).cmp(&(self.0, self.1))
    }
}

/// A connection's transaction state.
#[derive(Default)]
struct Txn {
    open: bool,
    savepoints: Vec<String>,
    /// Sequence number (in the work file) of the statement that opened it.
    since: u64,
}

/// What the conversion pass produced besides the work file.
#[derive(Debug, Default)]
pub struct Converted {
    pub run_ops: u64,
    pub connections: u32,
    pub settings: BTreeMap<String, String>,
    pub dropped: BTreeMap<String, u64>,
    /// Connection → sequence number of its unfinished transaction's first statement, for
    /// `--dangling drop`.
    pub dangling: HashMap<u32, u64>,
}

/// The conversion pass: fed the chosen database's statements in log order, emits timed
/// operations in start order.
pub struct Converter<'a> {
    rules: &'a Rules,
    /// Objects the load phase creates: a CREATE of one in the log is left out.
    schema: &'a HashSet<(String, String)>,
    /// The reorder buffer: statements fed in start order (most of a log) queue at the back of
    /// `in_order`; any other waits in `heap`. The earliest of their two fronts goes first.
    in_order: VecDeque<Queued>,
    heap: BinaryHeap<Queued>,
    fed: u64,
    newest: u64,
    last_start: u64,
    origin: Option<u64>,
    prev_rel: u64,
    shift: u64,
    base: Option<u64>,
    conns: FastMap<String, u32>,
    /// The latest start fed per connection key.
    conn_starts: FastMap<String, u64>,
    /// Where a connection key made of a pid and tid is written.
    key: KeyBuf,
    /// Merged: the connection (key) inside a transaction, and the statements of other
    /// connections waiting for it to end (with their count per connection).
    owner: Option<String>,
    deferred: VecDeque<StatementRecord>,
    deferred_by: FastMap<String, u64>,
    txns: Vec<Txn>,
    pending: Option<TimedOp>,
    last_offset: u64,
    pub out: Converted,
}

impl<'a> Converter<'a> {
    pub fn new(rules: &'a Rules, schema: &'a HashSet<(String, String)>) -> Self {
        Converter {
            rules,
            schema,
            in_order: VecDeque::new(),
            heap: BinaryHeap::new(),
            fed: 0,
            newest: 0,
            last_start: 0,
            origin: None,
            prev_rel: 0,
            shift: 0,
            base: None,
            conns: FastMap::default(),
            conn_starts: FastMap::default(),
            key: KeyBuf::default(),
            owner: None,
            deferred: VecDeque::new(),
            deferred_by: FastMap::default(),
            txns: Vec::new(),
            pending: None,
            last_offset: 0,
            out: Converted::default(),
        }
    }

    fn drop(&mut self, why: &str) {
        *self.out.dropped.entry(why.to_string()).or_default() += 1;
    }

    /// Take one statement of the chosen database (in log order).
    pub fn feed(
        &mut self,
        s: StatementRecord,
        emit: &mut dyn FnMut(TimedOp) -> Result<()>,
    ) -> Result<()> {
        if s.status.is_some_and(|c| matches!(c & 0xff, 5 | 6)) {
            self.drop("failed in the app: a lock wait given up (SQLITE_BUSY or SQLITE_LOCKED)");
            return Ok(());
        }
        if s.status.is_some_and(|c| !matches!(c, 0 | 100 | 101)) {
            self.drop("failed in the app");
            return Ok(());
        }
        if let Some((k, v)) = pragma_setting(&s.sql) {
            self.out.settings.insert(k, v);
            return Ok(());
        }
        // A connection runs one statement at a time: never before its previous one (a
        // coarse duration can put an end-stamped start there).
        let key = connection_key(&s, &mut self.key);
        let last = match self.conn_starts.get_mut(key) {
            Some(last) => last,
            None => self.conn_starts.entry(key.to_string()).or_default(),
        };
        let start = s.start_ns().max(*last);
        *last = start;
        let mut s = s;
        s.t_ns = start;
        s.stamp = crate::workload::import::record::Stamp::Start;
        // What the conversion no longer reads goes now, not after the reorder buffer: the
        // database (chosen before this), and the expanded text of a statement with arguments
        // (the arguments are bound or written in, [`Converter::op`]).
        s.db = None;
        if s.args.as_ref().is_some_and(|a| !a.is_empty()) {
            s.expanded = None;
        }
        self.newest = self.newest.max(start);
        let q = Queued(start, self.fed, Box::new(s));
        if self.in_order.back().is_none_or(|b| b.0 <= start) {
            self.in_order.push_back(q);
        } else {
            self.heap.push(q);
        }
        self.fed += 1;
        while let Some(first) = self.earliest() {
            let queued = self.in_order.len() + self.heap.len();
            if queued <= REORDER_MAX && first.saturating_add(REORDER_NS) > self.newest {
                break;
            }
            let Some(s) = self.pop() else {
                break;
            };
            self.convert(s, emit)?;
        }
        Ok(())
    }

    /// Whether the reorder buffer's next statement is the front of `in_order` (else the top
    /// of `heap`); `None` when both are empty.
    fn next_in_order(&self) -> Option<bool> {
        match (self.in_order.front(), self.heap.peek()) {
            (Some(a), Some(b)) => Some((a.0, a.1) < (b.0, b.1)),
            (Some(_), None) => Some(true),
            (None, Some(_)) => Some(false),
            (None, None) => None,
        }
    }

    /// The start of the reorder buffer's next statement.
    fn earliest(&self) -> Option<u64> {
        let q = match self.next_in_order()? {
            true => self.in_order.front(),
            false => self.heap.peek(),
        };
        q.map(|q| q.0)
    }

    /// Take the reorder buffer's next statement (earliest start, then log order).
    fn pop(&mut self) -> Option<StatementRecord> {
        let q = match self.next_in_order()? {
            true => self.in_order.pop_front(),
            false => self.heap.pop(),
        };
        q.map(|Queued(_, _, s)| *s)
    }

    /// The log ended: convert what is queued and close what is left open.
    pub fn finish(mut self, emit: &mut dyn FnMut(TimedOp) -> Result<()>) -> Result<Converted> {
        while let Some(s) = self.pop() {
            self.convert(s, emit)?;
        }
        // Still waiting at the end, behind a transaction the log never ended.
        let waiting = self.deferred.len() as u64;
        if waiting > 0 {
            *self
                .out
                .dropped
                .entry("waited for a transaction the log never ended".into())
                .or_default() += waiting;
        }
        for conn in 0..self.txns.len() {
            let t = &self.txns[conn];
            if !t.open && t.savepoints.is_empty() {
                continue;
            }
            let sql = match self.rules.dangling {
                Dangling::Commit if t.open => "COMMIT".to_string(),
                Dangling::Rollback if t.open => "ROLLBACK".to_string(),
                Dangling::Commit => format!("RELEASE \"{}\"", t.savepoints[0].replace('"', "\"\"")),
                Dangling::Rollback => {
                    let sp = t.savepoints[0].replace('"', "\"\"");
                    format!("ROLLBACK TO \"{sp}\"; RELEASE \"{sp}\"")
                }
                Dangling::Drop => {
                    self.out.dangling.insert(conn as u32, t.since);
                    continue;
                }
            };
            let op = TimedOp {
                op: Op::Sql { sql },
                delay_ns: 0,
                recorded: Some(Recorded {
                    conn: conn as u32,
                    offset_ns: self.last_offset,
                    dur_ns: None,
                }),
            };
            self.push(op, emit)?;
        }
        if let Some(p) = self.pending.take() {
            emit(p)?;
        }
        self.out.connections = self.conns.len().max(1) as u32;
        Ok(self.out)
    }

    fn connection(&mut self, s: &StatementRecord) -> Result<u32> {
        if self.rules.merge_connections {
            if self.txns.is_empty() {
                self.txns.push(Txn::default());
            }
            return Ok(0);
        }
        let key = connection_key(s, &mut self.key);
        let n = self.conns.len() as u32;
        if let Some(c) = self.conns.get(key) {
            return Ok(*c);
        }
        if u64::from(n) >= MAX_CONNECTIONS {
            return Err(Error::input(format!(
                "the log uses more than {MAX_CONNECTIONS} connections (the limit, see docs/limits.md); import with --merge-connections"
            )));
        }
        self.conns.insert(key.to_string(), n);
        self.txns.push(Txn::default());
        Ok(n)
    }

    /// Check the statement against its connection's nesting; the reason when it is left out.
    fn nesting(&mut self, conn: u32, sql: &str, seq: u64) -> Option<&'static str> {
        let t = &mut self.txns[conn as usize];
        let inside = t.open || !t.savepoints.is_empty();
        match txn_step(sql) {
            TxnStep::Begin if inside => return Some("BEGIN inside a transaction"),
            TxnStep::Begin => {
                t.open = true;
                t.since = seq;
            }
            TxnStep::Commit | TxnStep::Rollback if !inside => {
                return Some("COMMIT or ROLLBACK outside a transaction")
            }
            TxnStep::Commit | TxnStep::Rollback => *t = Txn::default(),
            TxnStep::Savepoint(name) => {
                if !inside {
                    t.since = seq;
                }
                t.savepoints.push(name);
            }
            TxnStep::Release(name) | TxnStep::RollbackTo(name) if !t.savepoints.contains(&name) => {
                return Some("RELEASE or ROLLBACK TO an unknown savepoint")
            }
            TxnStep::Release(name) => {
                let at = t.savepoints.iter().rposition(|n| *n == name).unwrap_or(0);
                t.savepoints.truncate(at);
            }
            TxnStep::RollbackTo(name) => {
                let at = t.savepoints.iter().rposition(|n| *n == name).unwrap_or(0);
                t.savepoints.truncate(at + 1);
            }
            TxnStep::None => {}
        }
        None
    }

    fn op(&self, s: StatementRecord) -> Option<Op> {
        let args: Option<Vec<SqlValue>> = s.args.map(|a| a.into_iter().map(into_value).collect());
        Some(match (self.rules.args, args) {
            (ArgsMode::Bind, Some(args)) if !args.is_empty() => Op::SqlArgs { sql: s.sql, args },
            (ArgsMode::Inline, Some(args)) if !args.is_empty() => Op::Sql {
                sql: inline_args(&s.sql, &args)?,
            },
            _ => Op::Sql {
                sql: s.expanded.unwrap_or(s.sql),
            },
        })
    }

    /// Convert `s`; merged, a statement of another connection than the one inside a
    /// transaction waits until that transaction ends (as the app's lock made it wait), and so
    /// do the later statements of its connection.
    fn convert(
        &mut self,
        s: StatementRecord,
        emit: &mut dyn FnMut(TimedOp) -> Result<()>,
    ) -> Result<()> {
        self.convert_one(s, emit)?;
        while self.owner.is_none() && !self.deferred.is_empty() {
            let queue = std::mem::take(&mut self.deferred);
            self.deferred_by.clear();
            for d in queue {
                self.convert_one(d, emit)?;
            }
        }
        Ok(())
    }

    fn convert_one(
        &mut self,
        s: StatementRecord,
        emit: &mut dyn FnMut(TimedOp) -> Result<()>,
    ) -> Result<()> {
        // Only a merge keeps track of connections by their key here.
        let key = match self.rules.merge_connections {
            true => connection_key(&s, &mut self.key).to_string(),
            false => String::new(),
        };
        if self.rules.merge_connections
            && (self.owner.as_ref().is_some_and(|o| *o != key)
                || self.deferred_by.contains_key(&key))
        {
            if self.deferred.len() >= REORDER_MAX {
                self.drop("waited beyond the merge buffer");
            } else {
                *self.deferred_by.entry(key).or_default() += 1;
                self.deferred.push_back(s);
            }
            return Ok(());
        }
        // Beyond the reorder buffer (or after a merged wait): at the latest start seen.
        let start = s.t_ns.max(self.last_start);
        self.last_start = start;
        let origin = *self.origin.get_or_insert(start);
        let rel = start - origin;
        if let Some(g) = self.rules.max_gap_ns {
            let gap = rel - self.prev_rel;
            if gap > g && self.base.is_some() {
                self.shift += gap - g;
            }
        }
        self.prev_rel = rel;
        if let Some((from, to)) = self.rules.window {
            if rel < from || rel >= to {
                self.drop("outside the window");
                return Ok(());
            }
        }
        if created_object(&s.sql).is_some_and(|o| self.schema.contains(&o)) {
            self.drop("creates an object the schema already has");
            return Ok(());
        }
        let conn = self.connection(&s)?;
        let dur = s.dur_ns;
        let Some(op) = self.op(s) else {
            self.drop("fewer arguments than parameters");
            return Ok(());
        };
        // What a trace cannot hold (arguments written in can bring a NUL byte or pass the
        // size limit) is left out here, before it counts.
        if let Err(why) = check_op(&op, &DataModel::Sql) {
            self.drop(why);
            return Ok(());
        }
        let sql = match &op {
            Op::Sql { sql } | Op::SqlArgs { sql, .. } => sql.as_str(),
            _ => "",
        };
        let seq = self.out.run_ops;
        if let Some(why) = self.nesting(conn, sql, seq) {
            self.drop(why);
            return Ok(());
        }
        if self.rules.merge_connections {
            let t = &self.txns[0];
            self.owner = (t.open || !t.savepoints.is_empty()).then_some(key);
        }
        let base = *self.base.get_or_insert(rel - self.shift);
        let speed = self.rules.speed;
        let scale = |ns: u64| (ns as f64 / speed).round() as u64;
        let offset = scale(rel - self.shift - base).max(self.last_offset);
        let op = TimedOp {
            op,
            delay_ns: 0,
            recorded: Some(Recorded {
                conn,
                offset_ns: offset,
                dur_ns: dur.map(scale),
            }),
        };
        self.push(op, emit)
    }

    /// Emit the previous operation, now that its delay (idle time to this one) is known.
    fn push(&mut self, op: TimedOp, emit: &mut dyn FnMut(TimedOp) -> Result<()>) -> Result<()> {
        let offset = op.recorded.map_or(0, |r| r.offset_ns);
        if let Some(mut p) = self.pending.take() {
            let r = p.recorded.unwrap_or_default();
            p.delay_ns = offset.saturating_sub(r.offset_ns + r.dur_ns.unwrap_or(0));
            emit(p)?;
        }
        self.last_offset = offset;
        self.out.run_ops += 1;
        self.pending = Some(op);
        Ok(())
    }
}

/// A connection key made of a pid and tid, and the two it was made of (consecutive
/// statements mostly share them: it is then not made again).
#[derive(Default)]
struct KeyBuf {
    of: Option<(u32, Option<u32>)>,
    text: String,
}

/// What names a statement's connection: the log's connection, else its pid and tid (made in
/// `buf`, reused from one statement to the next).
fn connection_key<'s>(s: &'s StatementRecord, buf: &'s mut KeyBuf) -> &'s str {
    match (&s.conn, s.pid) {
        (Some(c), _) => c.as_str(),
        (None, Some(p)) => {
            if buf.of != Some((p, s.tid)) {
                let text = &mut buf.text;
                text.clear();
                text.push_str("pid ");
                push_decimal(text, p);
                if let Some(t) = s.tid {
                    text.push_str(" tid ");
                    push_decimal(text, t);
                }
                buf.of = Some((p, s.tid));
            }
            buf.text.as_str()
        }
        _ => "",
    }
}

/// `n` in decimal, as `Display` writes it (without the formatting machinery: this runs for
/// every statement of a log that names no connection).
fn push_decimal(out: &mut String, mut n: u32) {
    let mut digits = [0u8; 10];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

#[cfg(test)]
mod tests;

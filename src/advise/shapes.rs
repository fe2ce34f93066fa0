//! The trace as advice reads it: its statement shapes (the SQL's fingerprint, literals and
//! parameters as `?`), the shape of every run-phase operation in order, and the runs of
//! autocommit writes one connection sends close together (the batching candidates).

use crate::error::{Error, Result};
use crate::workload::import::sql::lexer::{fingerprint, tokens, Kind};
use crate::workload::import::sql::sqltext::{txn_step, TxnStep};
use crate::workload::op::{Op, OpKind};
use crate::workload::trace::{TraceHeader, TraceItem, TraceReader};
use serde::Serialize;
use std::collections::HashMap;
use std::path::Path;

/// Distinct statement shapes told apart at most (docs/limits.md); the others share one.
pub const MAX_SHAPES: usize = 10_000;
/// Distinct texts counted per shape at most (enough to tell a statement cache it misses).
const MAX_TEXTS: usize = 64;
/// Writes closer together than this (the delay after one, before the next) are one burst.
pub const BURST_GAP_NS: u64 = 100_000_000;
/// A burst has at least this many writes.
pub const BURST_MIN: u64 = 3;
/// A batch holds at most this many writes; a longer burst is cut into batches of this size.
pub const BATCH_MAX: u64 = 1_000;

/// One statement shape.
#[derive(Clone, Debug, Serialize)]
pub struct Shape {
    pub fingerprint: String,
    /// Its first text as the trace has it.
    pub example: String,
    pub kind: OpKind,
    /// Run-phase operations of this shape.
    pub count: u64,
    /// Sent as text with literals in it (not with bound arguments).
    pub literals: bool,
    /// Distinct texts seen (at most [`MAX_TEXTS`]).
    pub texts: u64,
    #[serde(skip)]
    seen: Vec<u64>,
}

/// Statement shapes by fingerprint, shared by every trace read for one advice (the baseline's
/// and each variant's, whose added statements become shapes of their own).
#[derive(Default)]
pub struct Shapes {
    pub list: Vec<Shape>,
    by: HashMap<String, u32>,
}

impl Shapes {
    /// The id of `op`'s shape (adding it), counting the operation in it; the last id
    /// ([`MAX_SHAPES`]) takes the overflow.
    pub fn id(&mut self, op: &Op) -> u32 {
        let id = self.intern(op);
        self.count(id, op);
        id
    }

    /// The id of `op`'s shape (adding it) without counting the operation (a variant's replay).
    pub fn intern(&mut self, op: &Op) -> u32 {
        let (fp, sql) = match op {
            Op::Sql { sql } | Op::SqlArgs { sql, .. } => (fingerprint(sql), sql.as_str()),
            other => (format!("({})", other.kind().name()), ""),
        };
        let fp = if self.by.len() >= MAX_SHAPES && !self.by.contains_key(&fp) {
            "(other shapes)".to_string()
        } else {
            fp
        };
        let id = match self.by.get(&fp) {
            Some(&id) => id,
            None => {
                let id = self.list.len() as u32;
                self.list.push(Shape {
                    fingerprint: fp.clone(),
                    example: sql.to_string(),
                    kind: op.kind(),
                    count: 0,
                    literals: matches!(op, Op::Sql { sql } if has_literals(sql)),
                    texts: 0,
                    seen: Vec::new(),
                });
                self.by.insert(fp, id);
                id
            }
        };
        id
    }

    fn count(&mut self, id: u32, op: &Op) {
        let sql = match op {
            Op::Sql { sql } | Op::SqlArgs { sql, .. } => sql.as_str(),
            _ => "",
        };
        let s = &mut self.list[id as usize];
        s.count += 1;
        if s.seen.len() < MAX_TEXTS {
            let h = text_hash(sql);
            if !s.seen.contains(&h) {
                s.seen.push(h);
                s.texts = s.seen.len() as u64;
            }
        }
    }

    pub fn get(&self, id: u32) -> &Shape {
        &self.list[id as usize]
    }

    /// Per shape id: whether its statements write (INSERT, UPDATE, DELETE, and the COMMITs that
    /// make writes durable).
    pub fn writes(&self) -> Vec<bool> {
        self.list
            .iter()
            .map(|s| {
                matches!(s.kind, OpKind::Insert | OpKind::Update | OpKind::Delete)
                    || matches!(txn_step(&s.example), TxnStep::Commit)
            })
            .collect()
    }
}

fn text_hash(sql: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    sql.hash(&mut h);
    h.finish()
}

/// Whether `sql` carries a string, number or blob literal.
pub fn has_literals(sql: &str) -> bool {
    tokens(sql).any(|t| matches!(t.kind, Kind::Str | Kind::Number | Kind::Blob))
}

/// A run of autocommit writes on one connection: run-phase operations `first..=last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Burst {
    pub first: u64,
    pub last: u64,
    pub conn: u32,
}

impl Burst {
    pub fn writes(&self) -> u64 {
        self.last - self.first + 1
    }
}

/// What advice needs of a trace.
pub struct TraceView {
    pub header: TraceHeader,
    pub version: u16,
    pub load_ops: u64,
    pub run_ops: u64,
    /// The shape of each run-phase operation, in order.
    pub run_shapes: Vec<u32>,
    pub bursts: Vec<Burst>,
    /// Commits of the run phase: autocommit writes and COMMIT/END statements.
    pub commits: u64,
    /// Sum of the trace's delays.
    pub delay_ns: u64,
}

/// Where a connection stands in its transactions.
#[derive(Default)]
struct Txn {
    open: bool,
}

/// Read the trace at `path`, giving its operations the shapes of `shapes` (and counting them
/// there when `count`: the app's own trace, not a variant of it).
pub fn read(path: &Path, shapes: &mut Shapes, count: bool) -> Result<TraceView> {
    let mut reader = TraceReader::open(path)?;
    let header = reader.header().clone();
    let version = reader.version();
    let mut view = TraceView {
        header,
        version,
        load_ops: 0,
        run_ops: 0,
        run_shapes: Vec::new(),
        bursts: Vec::new(),
        commits: 0,
        delay_ns: 0,
    };
    let mut txns: HashMap<u32, Txn> = HashMap::new();
    // The burst being grown: its first operation, connection and the gap after its last.
    let mut open: Option<(Burst, u64)> = None;
    while let Some(item) = reader.next_item()? {
        let t = match item {
            TraceItem::Load(_) => {
                view.load_ops += 1;
                continue;
            }
            TraceItem::Run(t) => t,
        };
        let seq = view.run_ops;
        view.run_ops += 1;
        view.delay_ns = view.delay_ns.saturating_add(t.delay_ns);
        view.run_shapes.push(if count {
            shapes.id(&t.op)
        } else {
            shapes.intern(&t.op)
        });
        let conn = t.recorded.map_or(0, |r| r.conn);
        let txn = txns.entry(conn).or_default();
        let sql = match &t.op {
            Op::Sql { sql } | Op::SqlArgs { sql, .. } => sql.as_str(),
            _ => "",
        };
        let write = matches!(
            t.op.kind(),
            OpKind::Insert | OpKind::Update | OpKind::Delete
        );
        let autocommit_write = write && !txn.open;
        match txn_step(sql) {
            TxnStep::Begin | TxnStep::Savepoint(_) if !txn.open => txn.open = true,
            TxnStep::Commit | TxnStep::Rollback if txn.open => {
                txn.open = false;
                view.commits += 1;
            }
            _ => {}
        }
        if autocommit_write {
            view.commits += 1;
        }
        open = match (open, autocommit_write) {
            (Some((mut b, gap)), true)
                if b.conn == conn && gap <= BURST_GAP_NS && b.writes() < BATCH_MAX =>
            {
                b.last = seq;
                Some((b, t.delay_ns))
            }
            (prev, w) => {
                if let Some((b, _)) = prev {
                    keep_burst(&mut view.bursts, b);
                }
                w.then_some((
                    Burst {
                        first: seq,
                        last: seq,
                        conn,
                    },
                    t.delay_ns,
                ))
            }
        };
    }
    if let Some((b, _)) = open {
        keep_burst(&mut view.bursts, b);
    }
    if view.run_ops == 0 {
        return Err(Error::input(format!(
            "{}: the trace has no run-phase operations to advise on",
            path.display()
        )));
    }
    Ok(view)
}

fn keep_burst(bursts: &mut Vec<Burst>, b: Burst) {
    if b.writes() >= BURST_MIN {
        bursts.push(b);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_share_a_fingerprint_and_count_their_texts() {
        let mut s = Shapes::default();
        let a = s.id(&Op::Sql {
            sql: "SELECT * FROM t WHERE a = 1".into(),
        });
        let b = s.id(&Op::Sql {
            sql: "select * from t where a = 2".into(),
        });
        let c = s.id(&Op::Sql {
            sql: "SELECT * FROM t WHERE a = 1".into(),
        });
        assert_eq!((a, b, c), (0, 0, 0));
        let shape = s.get(0);
        assert_eq!(shape.fingerprint, "SELECT * FROM T WHERE A = ?");
        assert_eq!((shape.count, shape.texts, shape.literals), (3, 2, true));
        let bound = s.id(&Op::SqlArgs {
            sql: "SELECT * FROM t WHERE b = ?".into(),
            args: vec![],
        });
        assert_eq!(bound, 1);
        assert!(!s.get(1).literals);
    }
}

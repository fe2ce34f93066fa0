//! The app's order across connections (`run --order recorded`, the default when an imported
//! trace replays its connections). Each connection's statements already run in their own
//! order; this module adds what the log says about the others: a statement does not start
//! before the write transactions that had committed before it started in the app have
//! committed in the replay, and write transactions take the write lock in the order they
//! committed in the app. The replay then commits in the app's order, so the keys SQLite
//! generates (`INTEGER PRIMARY KEY`, `AUTOINCREMENT`) are the app's, and a connection never
//! reads a table another connection had not created yet.
//!
//! Both rules come down to one counter, the write transactions committed so far in the
//! replay, and one number per statement, the count it waits for ([`Plan::gate`]):
//! - a statement waits for every write transaction whose end (its `COMMIT`, `ROLLBACK`,
//!   outermost `RELEASE`, or the autocommit write itself) ended in the log before the
//!   statement started;
//! - every statement of a write transaction, from its `BEGIN`, waits for the write
//!   transactions that ended before this one ended (its rank among them), so its reads see
//!   what the app's saw and its writes come after theirs.
//!
//! With a rollback journal (every journal mode but WAL) a transaction that only reads holds
//! its shared lock to its end, and no write transaction can commit meanwhile: every write
//! transaction that ended in the log before it ended had committed before it began. So its
//! statements, from its `BEGIN`, wait for those too; otherwise it could take its lock first in
//! the replay and hold it while it waits for a commit its lock blocks. Under WAL readers block
//! no writer, and a read transaction waits only as autocommit statements do.
//!
//! Either way a transaction waits only before its first statement: what its later statements
//! wait for had ended before it ended, so no connection waits for the order while it holds a
//! lock that another connection needs.
//!
//! A transaction is a write transaction when one of its statements takes the write lock
//! ([`takes_write_lock`]). The plan is made in one pass over the trace before the clock starts;
//! it holds 16 bytes per run statement while it is made and 4 after, for at most
//! [`MAX_STATEMENTS`] statements (docs/limits.md).

use crate::error::{Error, Result};
use crate::workload::import::sqltext::{takes_write_lock, txn_step, TxnStep};
use crate::workload::op::{Op, TimedOp};
use crate::workload::trace::{TraceItem, TraceReader};
use serde::{Deserialize, Serialize};
use std::path::Path;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// Which order a replay with connections keeps (`run --order`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    /// The app's: each statement after the write transactions committed before it started in
    /// the log, write transactions in the app's commit order, lock waits retried.
    #[default]
    Recorded,
    /// Only the schedule: each statement at its recorded offset, after its own connection's.
    Time,
}

/// The flag of a gate that ends a write transaction.
const ENDS_WRITE: u32 = 1 << 31;

/// How long a statement waits for the app's order before it goes ahead anyway (counted): the
/// log's clock is not exact, and a replay must never hang on it.
pub const ORDER_WAIT_MAX: Duration = Duration::from_secs(30);

/// The order to keep: per run statement (in file order), the committed write transactions it
/// waits for and whether it ends one.
#[derive(Debug, Default)]
pub struct Plan {
    gates: Vec<u32>,
    /// Write transactions in the trace.
    pub write_transactions: u32,
}

/// One connection's transaction in progress while the plan is made.
#[derive(Default)]
struct Open {
    /// Statements of the transaction so far (indices into the plan).
    members: Vec<u32>,
    /// Savepoint depth; an explicit `BEGIN` counts as one.
    depth: usize,
    /// Opened by `BEGIN` or `SAVEPOINT` (not an autocommit statement).
    explicit: bool,
    writes: bool,
    /// When its latest statement ended in the log.
    end_ns: u64,
}

/// A write transaction: its statements and when it ended in the log.
struct WriteTxn {
    members: Vec<u32>,
    end_ns: u64,
}

/// Run statements an ordered replay plans at most (16 bytes each while planning).
pub const MAX_STATEMENTS: usize = 100_000_000;

impl Plan {
    /// The plan for the run phase of the trace at `path`, replayed with a rollback journal
    /// (`rollback`) or WAL.
    pub fn of(path: &Path, rollback: bool) -> Result<Plan> {
        let mut reader = TraceReader::open(path)?;
        let mut planner = Planner {
            rollback,
            ..Planner::default()
        };
        while let Some(item) = reader.next_item()? {
            if let TraceItem::Run(t) = item {
                if planner.starts.len() >= MAX_STATEMENTS {
                    return Err(Error::input(format!(
                        "{}: more than {MAX_STATEMENTS} statements to keep in the app's order (the limit, see docs/limits.md); replay it with --order time",
                        path.display()
                    )));
                }
                planner.feed(&step(&t));
            }
        }
        Ok(planner.finish())
    }

    /// Statement `seq`'s gate: the write transactions it waits for, and whether it ends one.
    pub fn gate(&self, seq: u64) -> (u32, bool) {
        let g = self.gates.get(seq as usize).copied().unwrap_or(0);
        (g & !ENDS_WRITE, g & ENDS_WRITE != 0)
    }
}

/// The plan being made, statement by statement in file order.
#[derive(Default)]
struct Planner {
    /// Read transactions hold their shared lock to the end (not WAL).
    rollback: bool,
    starts: Vec<u64>,
    open: Vec<Open>,
    txns: Vec<WriteTxn>,
    /// Explicit transactions that only read (kept under a rollback journal only).
    reads: Vec<WriteTxn>,
}

impl Planner {
    fn feed(&mut self, s: &Step) {
        let i = self.starts.len() as u32;
        self.starts.push(s.start_ns);
        let c = s.conn as usize;
        if self.open.len() <= c {
            self.open.resize_with(c + 1, Open::default);
        }
        let o = &mut self.open[c];
        o.members.push(i);
        o.writes |= s.writes;
        o.end_ns = s.end_ns;
        match &s.txn {
            TxnStep::Begin => {
                o.depth = o.depth.max(1);
                o.explicit = true;
            }
            TxnStep::Savepoint(_) => {
                o.depth += 1;
                o.explicit = true;
            }
            TxnStep::Release(_) => o.depth = o.depth.saturating_sub(1),
            TxnStep::Commit | TxnStep::Rollback => o.depth = 0,
            TxnStep::RollbackTo(_) | TxnStep::None => {}
        }
        if o.depth == 0 {
            let done = std::mem::take(o);
            let t = WriteTxn {
                members: done.members,
                end_ns: done.end_ns,
            };
            if done.writes {
                self.txns.push(t);
            } else if done.explicit && self.rollback {
                self.reads.push(t);
            }
        }
    }

    fn finish(mut self) -> Plan {
        // A transaction still open at the end is ordered by its last statement.
        for o in std::mem::take(&mut self.open)
            .into_iter()
            .filter(|o| o.writes)
        {
            self.txns.push(WriteTxn {
                members: o.members,
                end_ns: o.end_ns,
            });
        }
        let mut txns = self.txns;
        txns.sort_by_key(|t| (t.end_ns, t.members.last().copied()));
        let ends: Vec<u64> = txns.iter().map(|t| t.end_ns).collect();
        // Rule one: the write transactions that ended before each statement started.
        let mut gates: Vec<u32> = self
            .starts
            .iter()
            .map(|&start| ends.partition_point(|&e| e < start) as u32)
            .collect();
        drop(self.starts);
        // Rule two: a write transaction's statements wait for those ranked before it.
        for (rank, t) in txns.iter().enumerate() {
            for &m in &t.members {
                let g = &mut gates[m as usize];
                *g = (*g).max(rank as u32);
            }
            if let Some(&last) = t.members.last() {
                gates[last as usize] |= ENDS_WRITE;
            }
        }
        // A read transaction under a rollback journal: after every commit that ended before it.
        for t in &self.reads {
            let before = ends.partition_point(|&e| e < t.end_ns) as u32;
            for &m in &t.members {
                let g = &mut gates[m as usize];
                *g = (*g & ENDS_WRITE) | (*g & !ENDS_WRITE).max(before);
            }
        }
        Plan {
            gates,
            write_transactions: txns.len() as u32,
        }
    }
}

/// What the plan needs of one run statement.
struct Step {
    conn: u32,
    start_ns: u64,
    end_ns: u64,
    writes: bool,
    txn: TxnStep,
}

fn step(t: &TimedOp) -> Step {
    let r = t.recorded.unwrap_or_default();
    let sql = match &t.op {
        Op::Sql { sql } | Op::SqlArgs { sql, .. } => sql.as_str(),
        _ => "",
    };
    Step {
        conn: r.conn,
        start_ns: r.offset_ns,
        end_ns: r.offset_ns + r.dur_ns.unwrap_or(0),
        writes: takes_write_lock(sql),
        txn: txn_step(sql),
    }
}

/// How a statement's wait for the app's order went.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    Ready,
    Waited,
    GaveUp,
}

/// The replay's side: write transactions committed so far, waited on by the connections.
#[derive(Default)]
pub struct Committed {
    count: Mutex<u32>,
    changed: Condvar,
}

impl Committed {
    /// Wait until `n` write transactions have committed: `Ready` at once, `Waited` after a
    /// wait, `GaveUp` when [`ORDER_WAIT_MAX`] passed first.
    pub fn wait_for(&self, n: u32) -> Wait {
        let guard = self.count.lock().unwrap_or_else(|e| e.into_inner());
        if *guard >= n {
            return Wait::Ready;
        }
        let (_guard, timeout) = self
            .changed
            .wait_timeout_while(guard, ORDER_WAIT_MAX, |c| *c < n)
            .unwrap_or_else(|e| e.into_inner());
        if timeout.timed_out() {
            Wait::GaveUp
        } else {
            Wait::Waited
        }
    }

    /// One more write transaction has committed (or failed: the order must go on).
    pub fn add(&self) {
        *self.count.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s(conn: u32, start_ns: u64, end_ns: u64, sql: &str) -> Step {
        Step {
            conn,
            start_ns,
            end_ns,
            writes: takes_write_lock(sql),
            txn: txn_step(sql),
        }
    }

    fn plan(steps: &[Step]) -> Plan {
        plan_with(steps, false)
    }

    fn plan_with(steps: &[Step], rollback: bool) -> Plan {
        let mut p = Planner {
            rollback,
            ..Planner::default()
        };
        steps.iter().for_each(|s| p.feed(s));
        p.finish()
    }

    fn gates(p: &Plan) -> Vec<(u32, bool)> {
        (0..p.gates.len() as u64).map(|i| p.gate(i)).collect()
    }

    #[test]
    fn a_reader_waits_for_the_create_that_finished_before_it_started() {
        // Connection 0 creates the table (0..10) and inserts (20..30); connection 1 reads at 15,
        // after the CREATE ended and while the INSERT had not started.
        let p = plan(&[
            s(0, 0, 10, "CREATE TABLE t(a)"),
            s(1, 15, 16, "SELECT * FROM t"),
            s(0, 20, 30, "INSERT INTO t VALUES (1)"),
        ]);
        assert_eq!(p.write_transactions, 2);
        assert_eq!(gates(&p), [(0, true), (1, false), (1, true)]);
    }

    #[test]
    fn overlapping_writers_commit_in_the_order_they_ended() {
        // Connection 1's insert started first (at 5) but waited for connection 0's
        // transaction (BEGIN at 0, COMMIT ending at 40) and ended at 45: it is ranked second,
        // so it waits for one commit. Connection 0's statements wait for none; its COMMIT
        // ends a write transaction, and so does connection 1's insert.
        let p = plan(&[
            s(0, 0, 1, "BEGIN"),
            s(1, 5, 45, "INSERT INTO t VALUES (2)"),
            s(0, 10, 20, "INSERT INTO t VALUES (1)"),
            s(0, 30, 40, "COMMIT"),
        ]);
        assert_eq!(gates(&p), [(0, false), (1, true), (0, false), (0, true)]);
    }

    #[test]
    fn read_transactions_and_savepoints() {
        // A read-only transaction on connection 0 ends no write transaction; a savepoint
        // transaction on connection 1 writes and ends at its outermost RELEASE (at 31).
        // Connection 0's second read starts at 50, after that release: it waits for one.
        let p = plan(&[
            s(0, 0, 1, "BEGIN"),
            s(1, 2, 3, "SAVEPOINT a"),
            s(0, 4, 5, "SELECT 1"),
            s(1, 6, 7, "SAVEPOINT b"),
            s(1, 8, 9, "UPDATE t SET a = 1"),
            s(1, 10, 11, "RELEASE b"),
            s(0, 12, 13, "COMMIT"),
            s(1, 30, 31, "RELEASE a"),
            s(0, 50, 51, "SELECT 2"),
        ]);
        assert_eq!(p.write_transactions, 1);
        let g = gates(&p);
        assert_eq!(g[6], (0, false));
        assert_eq!(g[7], (0, true));
        assert_eq!(g[8], (1, false));
    }

    #[test]
    fn under_a_rollback_journal_a_read_transaction_follows_the_commits_it_outlived() {
        // Connection 1's read transaction (BEGIN at 0, SELECT at 2..30 waiting for its shared
        // lock, COMMIT at 40) outlived connection 0's autocommit insert (1..20): with a
        // rollback journal the insert committed before the read took its lock, so the read
        // transaction waits for it from its BEGIN. Under WAL only the COMMIT, which started
        // after the insert ended, waits.
        let steps = [
            s(1, 0, 1, "BEGIN"),
            s(0, 1, 20, "INSERT INTO t VALUES (1)"),
            s(1, 2, 30, "SELECT * FROM t"),
            s(1, 40, 41, "COMMIT"),
        ];
        assert_eq!(
            gates(&plan_with(&steps, true)),
            [(1, false), (0, true), (1, false), (1, false)]
        );
        assert_eq!(
            gates(&plan_with(&steps, false)),
            [(0, false), (0, true), (0, false), (1, false)]
        );
    }

    #[test]
    fn the_counter_releases_waiters_in_turn() {
        let c = Committed::default();
        assert_eq!(c.wait_for(0), Wait::Ready);
        std::thread::scope(|scope| {
            let w = scope.spawn(|| c.wait_for(2));
            c.add();
            c.add();
            assert_ne!(w.join().unwrap(), Wait::GaveUp);
        });
        assert_eq!(c.wait_for(2), Wait::Ready);
    }
}

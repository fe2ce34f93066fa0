//! `durability --workload ycsb-a|pocketdata-…|TRACE`: any workload `run` accepts, or a trace
//! file (`.pbt`, generated or imported), as the durability workload of the child-process
//! models (process crash and the recorded power-loss models). The workload is resolved as
//! `run --workload` resolves it ([`crate::workload::resolve`]) and written as a trace; its
//! load phase is the starting database (loaded as `run` loads it, [`crate::run::load`]); the
//! first `--txns` operations of its run phase are the workload, replayed on one connection.
//!
//! What is acknowledged and what the check after recovery verifies:
//! - **key-value traces**: every operation is one engine commit, acknowledged when it returns.
//!   After recovery every record the load phase or the acknowledged operations wrote must read
//!   back as the last acknowledged write left it (the run's read-your-writes model,
//!   [`crate::run::verify`], over every key); the operation in flight may have landed or not;
//!   a record only later operations insert must be absent.
//! - **SQL traces** (SQLite): a statement outside `BEGIN … COMMIT` is a commit of its own, and
//!   so is a `COMMIT`/`END`/`ROLLBACK`. The same prefix is replayed once more on a fresh copy
//!   of the starting database, noting a digest of the database's content (every table's rows,
//!   order aside, and the schema) after every commit. After recovery the database must pass
//!   `PRAGMA integrity_check` and its digest must be the one after the acknowledged commits
//!   (or after the one in flight); the digest after an earlier commit *k* counts the commits
//!   after *k* that changed the database as lost.

use super::scratch::{copy_dir, in_one_read, BASE};
use super::PointResult;
use crate::engine::{self, Engine, LastRead};
use crate::error::{Error, Result, ResultExt};
use crate::platform::clock::mono_ns;
use crate::run::materialize::Materializer;
use crate::run::verify::Verifier;
use crate::workload::delay::DelayModel;
use crate::workload::model::DataModel;
use crate::workload::op::Op;
use crate::workload::trace::{self, TraceItem, TraceReader};
use crate::workload::{resolve, Overrides};
use std::collections::BTreeSet;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};

/// The trace's name in the scratch directory, when it is generated there.
const TRACE_FILE: &str = "workload.pbt";
/// The content digests after each commit of a SQL trace, one hexadecimal line each.
pub const DIGESTS_FILE: &str = "digests";

/// A workload given by name or file, checked and not yet written anywhere.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Traced {
    /// What `--workload` said.
    pub name: String,
    /// A trace file to take as it is, or `None`: generate one from `name`.
    file: Option<PathBuf>,
    seed: u64,
    pub model: DataModel,
}

impl Traced {
    /// Resolve `--workload SPEC` as `run` does (a built-in name or a workload file), or take a
    /// trace file, read through once to check it. Writes nothing.
    pub fn resolve(spec: &str, seed: u64) -> Result<Traced> {
        let path = Path::new(spec);
        let (file, model) = if path.is_file() && trace::is_trace(path) {
            let (header, _) = trace::verify(path)?;
            let abs = path
                .canonicalize()
                .input_err(format!("--workload {spec}"))?;
            (Some(abs), header.workload.model)
        } else {
            let w = resolve::resolve(spec, &Overrides::default(), seed).map_err(|e| match e {
                Error::Input(_) if !path.exists() => Error::input(format!(
                    "--workload {}: not append, update, a built-in workload ({}) or a file (a workload file or a trace, .pbt)",
                    crate::limits::escape(spec),
                    resolve::builtin_names().join(", ")
                )),
                other => other,
            })?;
            (None, w.info.model)
        };
        Ok(Traced {
            name: spec.to_string(),
            file,
            seed,
            model,
        })
    }

    pub fn is_sql(&self) -> bool {
        matches!(self.model, DataModel::Sql)
    }

    /// The trace in scratch directory `dir` (after [`Traced::prepare`]).
    pub fn path(&self, dir: &Path) -> PathBuf {
        self.file.clone().unwrap_or_else(|| dir.join(TRACE_FILE))
    }

    /// Write the trace into `dir` (unless it is a file already) and load its load phase into
    /// `dir/base` with `engine`, as `run` loads it.
    pub fn prepare(
        &self,
        engine_name: &str,
        options: &[(String, String)],
        dir: &Path,
    ) -> Result<()> {
        engine::check(engine_name, options, &self.model)?;
        let path = self.path(dir);
        if self.file.is_none() {
            let w = resolve::resolve(&self.name, &Overrides::default(), self.seed)?;
            trace::generate(w, &DelayModel::Zero, self.seed, &path)?;
        }
        let base = dir.join(BASE);
        std::fs::create_dir_all(&base).run_err(format!("creating {}", base.display()))?;
        let mut e = engine::open(engine_name, options, &base)?;
        let mut reader = TraceReader::open(&path)?;
        crate::run::load::load(e.as_mut(), &mut reader)?;
        Ok(())
    }

    /// A SQL trace's digests after each commit of its first `ops` operations, replayed on a
    /// fresh copy of `dir/base`, written to `dir/digests` (and its path returned); `None` for
    /// a key-value trace.
    pub fn digests(
        &self,
        engine_name: &str,
        options: &[(String, String)],
        dir: &Path,
        ops: u64,
    ) -> Result<Option<PathBuf>> {
        if !self.is_sql() {
            return Ok(None);
        }
        let work = dir.join("digesting");
        copy_dir(&dir.join(BASE), &work)?;
        let db = work.join(crate::engine::sqlite::DB_FILE);
        let mut digests = vec![digest(&db).map_err(Error::failed)?];
        {
            let mut e = engine::open(engine_name, options, &work)?;
            replay(e.as_mut(), &self.path(dir), ops, |_| {
                digests.push(digest(&db).map_err(Error::failed)?);
                Ok(())
            })?;
        }
        let _ = std::fs::remove_dir_all(&work);
        let text: String = digests.iter().map(|d| format!("{d:016x}\n")).collect();
        let out = dir.join(DIGESTS_FILE);
        std::fs::write(&out, text).run_err(format!("writing {}", out.display()))?;
        Ok(Some(out))
    }
}

/// The first word of a statement, upper-cased.
fn first_word(sql: &str, skip: usize) -> String {
    sql.split(|c: char| !c.is_ascii_alphabetic())
        .filter(|w| !w.is_empty())
        .nth(skip)
        .unwrap_or("")
        .to_ascii_uppercase()
}

/// Whether statement `sql` ends a commit on a connection that is `in_txn` (updated): outside
/// an explicit transaction every statement commits; `COMMIT`, `END` and `ROLLBACK` (not
/// `ROLLBACK TO`) end one.
pub fn commits(sql: &str, in_txn: &mut bool) -> bool {
    match first_word(sql, 0).as_str() {
        "BEGIN" => {
            *in_txn = true;
            false
        }
        "SAVEPOINT" if !*in_txn => {
            *in_txn = true;
            false
        }
        "COMMIT" | "END" => std::mem::replace(in_txn, false),
        "ROLLBACK" if first_word(sql, 1) != "TO" => std::mem::replace(in_txn, false),
        _ => !*in_txn,
    }
}

/// Run the first `ops` run-phase operations of the trace at `path` on `e` (the load phase is
/// the starting database) and call `ack(n)` at the `n`-th acknowledgement: after each
/// key-value operation, after each commit of a SQL trace. A failed key-value operation stops
/// the workload; a failed SQL statement is answered to the app, so the workload goes on.
pub fn replay(
    e: &mut dyn Engine,
    path: &Path,
    ops: u64,
    mut ack: impl FnMut(u64) -> Result<()>,
) -> Result<()> {
    let mut reader = TraceReader::open(path)?;
    let model = reader.header().workload.model.clone();
    e.create_schema(&model)?;
    let mut materializer = Materializer::new(&model);
    let (mut done, mut acks, mut in_txn) = (0u64, 0u64, false);
    while done < ops {
        let Some(item) = reader.next_item()? else {
            break;
        };
        let TraceItem::Run(timed) = item else {
            continue;
        };
        done += 1;
        let request = materializer.request(&timed.op);
        let result = e.execute(&request);
        let acknowledged = match &timed.op {
            Op::Sql { sql } | Op::SqlArgs { sql, .. } => commits(sql, &mut in_txn),
            op => {
                result.map_err(|m| {
                    Error::failed(format!(
                        "workload operation {done} ({}): {m}",
                        trace::show::describe(op)
                    ))
                })?;
                true
            }
        };
        if acknowledged {
            acks += 1;
            ack(acks)?;
        }
    }
    Ok(())
}

/// A digest of a SQLite database's content: the schema and every table's rows, as a
/// multiset (row order aside).
pub fn digest(db: &Path) -> std::result::Result<u64, String> {
    digest_where(db, "")
}

/// [`digest`] with the indexes left out of the schema: the same for two databases whose
/// tables hold the same rows under other indexes (`advise` compares variants so).
pub fn digest_without_indexes(db: &Path) -> std::result::Result<u64, String> {
    digest_where(db, " AND type <> 'index'")
}

fn digest_where(db: &Path, filter: &str) -> std::result::Result<u64, String> {
    let c = rusqlite::Connection::open(db).map_err(|e| e.to_string())?;
    let hash = |parts: &dyn Fn(&mut std::hash::DefaultHasher)| {
        let mut h = std::hash::DefaultHasher::new();
        parts(&mut h);
        h.finish()
    };
    let mut schema = c
        .prepare(&format!("SELECT type, name, coalesce(sql, '') FROM sqlite_master WHERE name NOT LIKE 'sqlite_%'{filter} ORDER BY type, name"))
        .map_err(|e| e.to_string())?;
    let objects: Vec<(String, String, String)> = schema
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .and_then(|rows| rows.collect())
        .map_err(|e| e.to_string())?;
    let mut total = hash(&|h| objects.hash(h));
    for (kind, name, _) in objects.iter().filter(|(k, _, _)| k == "table") {
        let _ = kind;
        let sql = format!("SELECT * FROM \"{}\"", name.replace('"', "\"\""));
        let mut stmt = c.prepare(&sql).map_err(|e| format!("{name}: {e}"))?;
        let columns = stmt.column_count();
        let mut rows = stmt.query([]).map_err(|e| format!("{name}: {e}"))?;
        while let Some(row) = rows.next().map_err(|e| format!("{name}: {e}"))? {
            let mut h = std::hash::DefaultHasher::new();
            name.hash(&mut h);
            for i in 0..columns {
                use rusqlite::types::ValueRef;
                match row.get_ref(i).map_err(|e| e.to_string())? {
                    ValueRef::Null => 0u8.hash(&mut h),
                    ValueRef::Integer(v) => (1u8, v).hash(&mut h),
                    ValueRef::Real(v) => (2u8, v.to_bits()).hash(&mut h),
                    ValueRef::Text(v) => (3u8, v).hash(&mut h),
                    ValueRef::Blob(v) => (4u8, v).hash(&mut h),
                }
            }
            total = total.wrapping_add(h.finish());
        }
    }
    Ok(total)
}

/// The checking side (`__durability-child --check --trace`): open the crash state in `dir`
/// with the engine's recovery and judge it against `acknowledged` acknowledgements of the
/// first `ops` operations of the trace at `path` (`digests`: the SQL trace's digest file).
pub fn check_state(
    engine_name: &str,
    options: &[(String, String)],
    dir: &Path,
    path: &Path,
    ops: u64,
    acknowledged: u64,
    digests: Option<&Path>,
) -> PointResult {
    let mut r = PointResult {
        acknowledged,
        ..PointResult::default()
    };
    let t0 = mono_ns();
    let opened = engine::open(engine_name, options, dir);
    r.recovery_ns = mono_ns() - t0;
    let outcome = opened.and_then(|mut e| match digests {
        Some(d) => {
            drop(e);
            judge_sql(&dir.join(crate::engine::sqlite::DB_FILE), d, &mut r)
        }
        None => judge_kv(e.as_mut(), path, ops, &mut r),
    });
    if let Err(e) = outcome {
        r.integrity.get_or_insert(format!("recovery failed: {e}"));
    }
    r
}

/// A SQL trace's crash state: integrity, then its digest among those after each commit.
fn judge_sql(db: &Path, digests: &Path, r: &mut PointResult) -> Result<()> {
    let text =
        std::fs::read_to_string(digests).run_err(format!("reading {}", digests.display()))?;
    let after: Vec<u64> = text
        .lines()
        .filter_map(|l| u64::from_str_radix(l, 16).ok())
        .collect();
    let commits = after.len().saturating_sub(1) as u64;
    r.in_flight = (r.acknowledged < commits).then_some(r.acknowledged + 1);
    let conn = rusqlite::Connection::open(db).map_err(|e| Error::failed(e.to_string()))?;
    let said: std::result::Result<String, _> =
        conn.query_row("PRAGMA integrity_check", [], |row| row.get(0));
    match said {
        Ok(s) if s == "ok" => {}
        Ok(s) => r.integrity = Some(s),
        Err(e) => r.integrity = Some(e.to_string()),
    }
    drop(conn);
    let got = match digest(db) {
        Ok(d) => d,
        Err(e) => {
            r.integrity
                .get_or_insert(format!("reading the database: {e}"));
            return Ok(());
        }
    };
    r.lost = sql_lost(&after, r.acknowledged, got).unwrap_or_else(|| {
        if r.integrity.is_none() {
            r.partial = 1;
        }
        r.inconsistent =
            Some("the database is not the one after any number of the trace's commits".into());
        0
    });
    Ok(())
}

/// Commits lost when the database's digest is `got`, `after[k]` the digest after commit `k`:
/// none when it is the one after the acknowledged commits or the one in flight; else, for the
/// newest earlier `k` it matches, the acknowledged commits after `k` that changed the
/// database; `None` when it matches none.
pub fn sql_lost(after: &[u64], acknowledged: u64, got: u64) -> Option<u64> {
    let ack = (acknowledged as usize).min(after.len().saturating_sub(1));
    if after.get(ack) == Some(&got) || after.get(ack + 1) == Some(&got) {
        return Some(0);
    }
    let k = (0..ack).rev().find(|&k| after[k] == got)?;
    Some((k + 1..=ack).filter(|&i| after[i] != after[i - 1]).count() as u64)
}

/// A key-value trace's crash state: every record written before the failure read back.
fn judge_kv(e: &mut dyn Engine, path: &Path, ops: u64, r: &mut PointResult) -> Result<()> {
    let mut reader = TraceReader::open(path)?;
    let model = reader.header().workload.model.clone();
    e.create_schema(&model)?;
    let load_ops = reader.header().workload.load_ops;
    let mut acked = Verifier::new(&model, load_ops);
    let mut landed = Verifier::new(&model, load_ops);
    let (mut loaded, mut written, mut later) = (BTreeSet::new(), BTreeSet::new(), BTreeSet::new());
    let mut in_flight_key = None;
    let mut done = 0u64;
    while done < ops {
        let Some(item) = reader.next_item()? else {
            break;
        };
        let op = match item {
            TraceItem::Load(op) => {
                loaded.insert(op.key());
                acked.wrote(&op);
                landed.wrote(&op);
                continue;
            }
            TraceItem::Run(timed) => timed.op,
        };
        done += 1;
        let writes = matches!(
            op,
            Op::Insert { .. } | Op::Update { .. } | Op::ReadModifyWrite { .. }
        );
        if done <= r.acknowledged {
            acked.wrote(&op);
            landed.wrote(&op);
            if writes {
                written.insert(op.key());
            }
        } else if done == r.acknowledged + 1 {
            r.in_flight = Some(done);
            landed.wrote(&op);
            in_flight_key = writes.then(|| op.key());
        } else if matches!(op, Op::Insert { .. }) {
            later.insert(op.key());
        }
    }
    let mut materializer = Materializer::new(&model);
    let keys: BTreeSet<u64> = loaded
        .union(&written)
        .copied()
        .chain(in_flight_key)
        .collect();
    in_one_read(e, |e| {
        for &key in keys.iter().chain(later.difference(&keys)) {
            if !acked.tracks(key) {
                continue;
            }
            let op = Op::Read { key };
            let mut request = materializer.request(&op);
            request.keep_read = true;
            if let Err(m) = e.execute(&request) {
                r.integrity
                    .get_or_insert(format!("reading record {key}: {m}"));
                continue;
            }
            let read = e.last_read();
            if !keys.contains(&key) {
                r.phantom += u64::from(matches!(read, LastRead::Record(_)));
                continue;
            }
            let Err(m) = acked.compare(key, read) else {
                continue;
            };
            if in_flight_key == Some(key) && landed.compare(key, e.last_read()).is_ok() {
                continue;
            }
            if written.contains(&key) {
                r.lost += 1;
            } else if !loaded.contains(&key) {
                // Written by the operation in flight alone, and neither before nor after it.
                r.partial += 1;
            } else {
                r.integrity
                    .get_or_insert(format!("record {key} as loaded before the workload: {m}"));
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statements_outside_a_transaction_commit_and_commit_ends_one() {
        let mut in_txn = false;
        let said: Vec<bool> = [
            "INSERT INTO t VALUES (1)",
            "begin immediate",
            "INSERT INTO t VALUES (2)",
            "SAVEPOINT a",
            "ROLLBACK TO a",
            "COMMIT",
            "SELECT 1",
            "BEGIN",
            "ROLLBACK",
            // Outside a transaction: an error, no commit.
            "END",
        ]
        .iter()
        .map(|s| commits(s, &mut in_txn))
        .collect();
        assert_eq!(
            said,
            [true, false, false, false, false, true, true, false, true, false]
        );
    }

    #[test]
    fn lost_commits_are_those_after_the_matching_digest_that_changed_the_database() {
        // Digests after 0..=5 commits; commit 3 changed nothing (a SELECT).
        let after = [10, 11, 12, 12, 14, 15];
        // The acknowledged state or the one in flight: nothing lost.
        assert_eq!(sql_lost(&after, 4, 14), Some(0));
        assert_eq!(sql_lost(&after, 4, 15), Some(0));
        // After commit 2 (= after 3) with 4 acknowledged: commit 4 lost, and 3 changed nothing.
        assert_eq!(sql_lost(&after, 4, 12), Some(1));
        // The loaded database with 5 acknowledged: commits 1, 2, 4, 5 lost.
        assert_eq!(sql_lost(&after, 5, 10), Some(4));
        // A database no prefix of commits makes.
        assert_eq!(sql_lost(&after, 5, 99), None);
    }
}

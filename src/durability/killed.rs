//! The engines whose I/O cannot be interposed in-process (LMDB reads through a memory map;
//! RocksDB, LevelDB and BerkeleyDB are C/C++ libraries with their own file layer): the
//! workload runs in a child process (`pocketbench __durability-child`) that is killed with
//! SIGKILL at a chosen moment, then the database is reopened with the engine's own recovery
//! and read back in full. This is a **process crash**, not a power failure: the operating
//! system's page cache survives, so it tests crash consistency (an acknowledged commit must
//! survive the process; a half-written one must not be visible) and says nothing about what an
//! unsynced configuration loses when the power fails. The output says so.
//!
//! The workload through the engine's key-value interface: record 0 holds the preloaded fields;
//! transaction `i` inserts record `i` whose fields are the payloads of `(i, part)` for each part
//! (one engine commit, so a record is all or nothing). A crash point is a delay in
//! microseconds from the child's start; the points are spread over the run time measured on a
//! run to completion. A replay kills at the same delay: the same moment in time, not
//! necessarily the same instruction. The JVM engines' workload and checker run in JVMs
//! ([`super::jvm`]); their crash points start where the workload starts, after the JVM's own
//! start.

use super::scratch::{copy_dir, in_one_read, BASE, WORK};
use super::sqlite::{read_acks, ACKS};
use super::traced::{self, Traced, DIGESTS_FILE};
use super::{is_payload, judge, payload, ByTxn, Plan, PointResult, Subject, PRELOAD};
use crate::engine::{self, kv, Engine, LastRead, Request};
use crate::error::{Error, Result, ResultExt};
use crate::platform::clock::mono_ns;
use crate::workload::model::{DataModel, KeyValueModel};
use crate::workload::op::Op;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// One engine configuration: its name and `-o` options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub engine: &'static str,
    pub options: Vec<(String, String)>,
    /// `--workload` naming a trace or a workload `run` accepts ([`traced`]); `None`: the
    /// append transactions.
    pub trace: Option<Traced>,
    /// A JVM engine's workload start, in microseconds from its process's (the JVM's own start
    /// comes first, and is no crash point worth trying); 0 until measured.
    pub start_us: std::cell::Cell<u64>,
}

/// Records of [`PRELOAD`] fields: engines with a column per field (SQLite) need them all, so
/// shorter records are padded with empty fields (a payload is never empty), dropped again
/// when read back.
fn model() -> KeyValueModel {
    KeyValueModel {
        hashed: false,
        field_count: PRELOAD as u16,
        ..KeyValueModel::default()
    }
}

fn insert(e: &mut dyn Engine, txn: u64, parts: u64) -> std::result::Result<(), String> {
    let mut key = Vec::new();
    model().key_text(txn, &mut key);
    let values: Vec<Vec<u8>> = (0..parts.max(PRELOAD))
        .map(|p| {
            if p < parts {
                payload(txn, p)
            } else {
                Vec::new()
            }
        })
        .collect();
    let op = Op::Insert {
        key: txn,
        seed: txn,
    };
    e.execute(&Request {
        op: &op,
        key: &key,
        values: &values,
        keep_read: false,
    })
    .map(|_| ())
}

/// The child's side: open the engine in `dir`, run the transactions, log each acknowledgement
/// to `acks` (a plain write: the page cache survives SIGKILL).
pub fn child(
    engine_name: &str,
    options: &[(String, String)],
    dir: &Path,
    acks: &Path,
    txns: u64,
    rows: u64,
    trace: Option<&Path>,
) -> Result<()> {
    let mut e = engine::open(engine_name, options, dir)?;
    if let Some(path) = trace {
        let mut log = std::fs::OpenOptions::new()
            .append(true)
            .open(acks)
            .run_err(format!("opening {}", acks.display()))?;
        writeln!(log, "0").run_err("acknowledgement log")?;
        return traced::replay(e.as_mut(), path, txns, |n| {
            writeln!(log, "{n}").run_err("acknowledgement log")
        });
    }
    // The engines that prepare statements for the key-value model (SQLite) need the schema
    // declared again; it exists, so nothing is written.
    e.create_schema(&DataModel::KeyValue(model()))?;
    let mut log = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(acks)
        .run_err(format!("opening {}", acks.display()))?;
    // 0: the engine is open and the workload starts (where a recording's crash points begin).
    writeln!(log, "0").run_err("acknowledgement log")?;
    for txn in 1..=txns {
        insert(e.as_mut(), txn, rows).map_err(Error::failed)?;
        writeln!(log, "{txn}").run_err("acknowledgement log")?;
    }
    Ok(())
}

impl Config {
    /// A SQL trace's digests after each commit ([`Traced::digests`]), before its crash points.
    pub(crate) fn digests(&self, dir: &Path, plan: &Plan) -> Result<()> {
        if let Some(t) = &self.trace {
            t.digests(self.engine, &self.options, dir, plan.txns)?;
        }
        Ok(())
    }

    /// Start the workload on a fresh copy, with `env` added to its environment; kill it
    /// after `delay` (never, with `None`); the copy's directory.
    pub(crate) fn run_child(
        &self,
        dir: &Path,
        plan: &Plan,
        delay: Option<Duration>,
        env: &[(&str, std::ffi::OsString)],
    ) -> Result<PathBuf> {
        let work = dir.join(WORK);
        copy_dir(&dir.join(BASE), &work)?;
        let acks = dir.join(ACKS);
        let _ = std::fs::remove_file(&acks);
        std::fs::write(&acks, b"").run_err("acknowledgement log")?;
        let jvm = super::jvm::is_jvm(self.engine);
        let mut cmd = if jvm {
            super::jvm::child_command(self.engine, &self.options, dir, &work, &acks, plan)?
        } else {
            let (mut cmd, _) = crate::run::child::self_command()?;
            cmd.arg("__durability-child")
                .arg(self.engine)
                .arg(&work)
                .arg(&acks)
                .arg(plan.txns.to_string())
                .arg(plan.rows_per_txn.to_string());
            if let Some(t) = &self.trace {
                cmd.arg("--trace").arg(t.path(dir));
            }
            for (k, v) in &self.options {
                cmd.arg(format!("{k}={v}"));
            }
            cmd
        };
        for (k, v) in env {
            cmd.env(k, v);
        }
        // The child's complaints (an engine printing as it is killed) go to a file, read back
        // only when a run that should have finished did not.
        let log = dir.join("child.err");
        let err = std::fs::File::create(&log).run_err("durability workload log")?;
        let t0 = mono_ns();
        let mut child = cmd
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(err)
            .spawn()
            .run_err("starting the durability workload")?;
        if let Some(d) = delay {
            std::thread::sleep(d);
            // SAFETY: kill(2) on our own child, which has not been waited for yet.
            unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGKILL) };
        } else if jvm {
            // Note when the workload starts (the first acknowledgement line, written once the
            // engine is open): a JVM takes most of its run time to start.
            while child
                .try_wait()
                .run_err("waiting for the durability workload")?
                .is_none()
            {
                if self.start_us.get() == 0 && std::fs::metadata(&acks).is_ok_and(|m| m.len() > 0) {
                    self.start_us.set(((mono_ns() - t0) / 1000).max(1));
                }
                std::thread::sleep(Duration::from_micros(200));
            }
        }
        let status = child
            .wait()
            .run_err("waiting for the durability workload")?;
        if delay.is_none() && !status.success() {
            let said = std::fs::read_to_string(&log).unwrap_or_default();
            return Err(Error::failed(format!(
                "the durability workload on {} failed ({status}): {}",
                self.engine,
                said.lines().last().unwrap_or("no message")
            )));
        }
        Ok(work)
    }
}

impl Subject for Config {
    fn engine(&self) -> &'static str {
        self.engine
    }

    fn config(&self) -> Vec<(String, String)> {
        self.options.clone()
    }

    fn model(&self, _torn: bool) -> String {
        "process crash: SIGKILL at a moment of the run, page cache intact (crash consistency, not power loss)".into()
    }

    fn first_point(&self) -> u64 {
        self.start_us.get().max(1)
    }

    fn prepare(&self, dir: &Path) -> Result<()> {
        if let Some(t) = &self.trace {
            return t.prepare(self.engine, &self.options, dir);
        }
        let base = dir.join(BASE);
        if super::jvm::is_jvm(self.engine) {
            return super::jvm::prepare(self.engine, &self.options, dir, &base);
        }
        std::fs::create_dir_all(&base).run_err(format!("creating {}", base.display()))?;
        let mut e = engine::open(self.engine, &self.options, &base)?;
        e.create_schema(&DataModel::KeyValue(model()))?;
        insert(e.as_mut(), 0, PRELOAD).map_err(Error::failed)?;
        Ok(())
    }

    /// The run time to completion, in microseconds: the crash points are moments in it.
    fn count_events(&self, dir: &Path, plan: &Plan) -> Result<u64> {
        self.digests(dir, plan)?;
        let t0 = mono_ns();
        self.run_child(dir, plan, None, &[])?;
        Ok((mono_ns() - t0) / 1000)
    }

    fn crash_at(&self, dir: &Path, plan: &Plan, point: u64, _state: u64) -> Result<PointResult> {
        let work = self.run_child(dir, plan, Some(Duration::from_micros(point)), &[])?;
        let acknowledged = read_acks(&dir.join(ACKS))?;
        let mut r = PointResult {
            point,
            acknowledged,
            in_flight: (acknowledged < plan.txns).then_some(acknowledged + 1),
            ..PointResult::default()
        };
        if let Some(t) = &self.trace {
            let digests = t.is_sql().then(|| dir.join(DIGESTS_FILE));
            let found = traced::check_state(
                self.engine,
                &self.options,
                &work,
                &t.path(dir),
                plan.txns,
                acknowledged,
                digests.as_deref(),
            );
            return Ok(PointResult { point, ..found });
        }
        if super::jvm::is_jvm(self.engine) {
            let found = super::jvm::check(
                self.engine,
                &self.options,
                dir,
                &work,
                acknowledged,
                plan,
                None,
            )?;
            return Ok(PointResult { point, ..found });
        }
        let t0 = mono_ns();
        let opened = engine::open(self.engine, &self.options, &work);
        r.recovery_ns = mono_ns() - t0;
        check(opened, &mut r, plan);
        Ok(r)
    }

    fn speed(&self, dir: &Path, plan: &Plan) -> Result<f64> {
        let work = dir.join(WORK);
        copy_dir(&dir.join(BASE), &work)?;
        if super::jvm::is_jvm(self.engine) {
            return super::jvm::speed(self.engine, &self.options, dir, &work, plan);
        }
        let mut e = engine::open(self.engine, &self.options, &work)?;
        if let Some(t) = &self.trace {
            // Acknowledgements per second: operations (key-value) or commits (SQL).
            let (t0, mut acks) = (mono_ns(), 0u64);
            traced::replay(e.as_mut(), &t.path(dir), plan.txns, |n| {
                acks = n;
                Ok(())
            })?;
            return Ok(acks as f64 * 1e9 / (mono_ns() - t0).max(1) as f64);
        }
        // The key-value statements exist once the schema is declared (SQLite prepares them
        // there), as in the child that records.
        e.create_schema(&DataModel::KeyValue(model()))?;
        super::time_transactions(plan, |txn| {
            insert(e.as_mut(), txn, u64::from(plan.rows_per_txn)).map_err(Error::failed)
        })
    }
}

/// The checking side of a crash state (`__durability-child --check` or `--check-stdin`, a
/// process apart from pocketbench's because an engine may die on a damaged file, LMDB with
/// SIGBUS): open `dir` with the
/// engine's recovery and judge it against `acknowledged` commits of `txns`.
pub fn check_state(
    engine_name: &str,
    options: &[(String, String)],
    dir: &Path,
    acknowledged: u64,
    txns: u64,
    rows: u64,
) -> PointResult {
    let plan = Plan {
        txns,
        rows_per_txn: rows as u32,
        ..Plan::default()
    };
    let mut r = PointResult {
        acknowledged,
        in_flight: (acknowledged < txns).then_some(acknowledged + 1),
        ..PointResult::default()
    };
    let t0 = mono_ns();
    let opened = engine::open(engine_name, options, dir).and_then(|mut e| {
        e.create_schema(&DataModel::KeyValue(model()))?;
        Ok(e)
    });
    r.recovery_ns = mono_ns() - t0;
    check(opened, &mut r, &plan);
    r
}

/// Judge what the engine, opened after the crash (`opened`), holds. A record that cannot be
/// read is an integrity failure, and the commits lost are still counted from the rest.
pub(crate) fn check(opened: Result<Box<dyn Engine>>, r: &mut PointResult, plan: &Plan) {
    match opened {
        Ok(mut e) => {
            let upto = r.acknowledged + 2;
            let rows = in_one_read(e.as_mut(), |e| read_back(e, upto, &mut r.integrity));
            // The records are the only trace of a commit: no counter is kept beside them.
            judge(r, &rows, None, plan);
        }
        Err(e) => r.integrity = Some(format!("recovery failed: {e}")),
    }
}

/// Each field of `record` but the empty (padding) ones: (part, whether it is intact).
fn record_parts(txn: u64, record: &[u8]) -> Vec<(u64, bool)> {
    kv::fields(record)
        .enumerate()
        .filter(|(_, f)| !f.is_empty())
        .map(|(i, f)| (i as u64, is_payload(txn, i as u64, f)))
        .collect()
}

/// Records 0..=`upto` as found (absent ones left out); the first read error in `problem`.
/// A key-value store is read in one pass in key order, the keys a record-by-record read would
/// ask for kept; where the store has no such pass, or the pass fails, record by record.
fn read_back(e: &mut dyn Engine, upto: u64, problem: &mut Option<String>) -> ByTxn {
    if let Some(rows) = scanned(e, upto) {
        return rows;
    }
    let mut rows = ByTxn::new();
    let mut key = Vec::new();
    let model = model();
    for txn in 0..=upto {
        model.key_text(txn, &mut key);
        let read = e.execute(&Request {
            op: &Op::Read { key: txn },
            key: &key,
            values: &[],
            keep_read: true,
        });
        if let Err(err) = read {
            problem.get_or_insert(format!("reading record {txn}: {err}"));
            continue;
        }
        if let LastRead::Record(record) = e.last_read() {
            rows.insert(txn, record_parts(txn, record));
        }
    }
    rows
}

/// [`read_back`] in one ordered pass ([`Engine::scan_records`]): the records whose key is the
/// one [`KeyValueModel::key_text`] gives a transaction up to `upto`. `None` where the engine
/// has no such pass or it fails (an error is then met record by record, in its place).
fn scanned(e: &mut dyn Engine, upto: u64) -> Option<ByTxn> {
    let model = model();
    let prefix = model.key_prefix.clone().into_bytes();
    let (mut rows, mut key) = (ByTxn::new(), Vec::new());
    e.scan_records(&prefix, &mut |k, v| {
        let txn = k
            .strip_prefix(prefix.as_slice())
            .and_then(|d| std::str::from_utf8(d).ok())
            .and_then(|d| d.parse::<u64>().ok())
            .filter(|&t| t <= upto);
        if let Some(txn) = txn {
            model.key_text(txn, &mut key);
            if key == k {
                rows.insert(txn, record_parts(txn, v));
            }
        }
    })?
    .ok()?;
    Some(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A real LMDB store built by hand as a crash could leave it: the preload, commits 1 and 3
    /// of three acknowledged. The checker reads every record back through LMDB and names the
    /// gap: 2 lost while 3, committed after it, survived.
    #[test]
    fn a_store_keeping_a_commit_after_a_lost_one_is_an_ordering_violation() {
        let dir = tempfile::tempdir().unwrap();
        let mut e = engine::open("lmdb", &[], dir.path()).unwrap();
        e.create_schema(&DataModel::KeyValue(model())).unwrap();
        for (txn, parts) in [(0, PRELOAD), (1, 3), (3, 3)] {
            insert(e.as_mut(), txn, parts).unwrap();
        }
        drop(e);
        let r = check_state("lmdb", &[], dir.path(), 3, 5, 3);
        assert_eq!((r.lost, r.partial, r.phantom), (1, 0, 0));
        assert_eq!((&r.integrity, &r.inconsistent), (&None, &None));
        assert_eq!(
            r.ordering.as_deref(),
            Some("transaction 2 (acknowledged) is missing or incomplete while 3 (acknowledged after it) is present; 1 acknowledged transaction(s) missing before 3")
        );
    }

    /// The one pass reads what record-by-record reading reads, on a SQLite table (through its
    /// SQL session) and on two key-value stores: commits 0–12 with 5 and 7 missing, two of them
    /// past `upto`, one damaged (its payload's first byte changed), and a stray key.
    #[test]
    fn one_ordered_pass_reads_what_point_reads_read() {
        for engine in ["sqlite", "lmdb", "redb"] {
            let dir = tempfile::tempdir().unwrap();
            let mut e = engine::open(engine, &[], dir.path()).unwrap();
            e.create_schema(&DataModel::KeyValue(model())).unwrap();
            for txn in (0..=12).filter(|t| ![5, 7, 9].contains(t)) {
                insert(e.as_mut(), txn, if txn == 0 { PRELOAD } else { 3 }).unwrap();
            }
            let mut damaged = vec![payload(9, 0), payload(9, 1)];
            damaged[0][0] ^= 1;
            for (txn, values) in [(9u64, damaged), (900, vec![payload(900, 0)])] {
                let mut key = Vec::new();
                model().key_text(txn, &mut key);
                if txn == 900 {
                    key.insert(4, b'x');
                }
                let op = Op::Insert { key: txn, seed: 0 };
                let values: Vec<Vec<u8>> = (0..PRELOAD as usize)
                    .map(|i| values.get(i).cloned().unwrap_or_default())
                    .collect();
                e.execute(&Request {
                    op: &op,
                    key: &key,
                    values: &values,
                    keep_read: false,
                })
                .unwrap();
            }
            let scanned = scanned(e.as_mut(), 10).expect(engine);
            let mut pointwise = ByTxn::new();
            let mut key = Vec::new();
            for txn in 0..=10 {
                model().key_text(txn, &mut key);
                let op = Op::Read { key: txn };
                e.execute(&Request {
                    op: &op,
                    key: &key,
                    values: &[],
                    keep_read: true,
                })
                .unwrap();
                if let LastRead::Record(record) = e.last_read() {
                    pointwise.insert(txn, record_parts(txn, record));
                }
            }
            assert_eq!(scanned, pointwise, "{engine}");
            assert_eq!(
                scanned.keys().copied().collect::<Vec<_>>(),
                [0, 1, 2, 3, 4, 6, 8, 9, 10],
                "{engine}"
            );
            assert_eq!(scanned[&9], [(0, false), (1, true)], "{engine}");
            assert_eq!(scanned[&0].len() as u64, PRELOAD, "{engine}");
        }
    }

    /// LMDB's data file holding the preload and the transactions `txns`, built in `dir`.
    fn lmdb_file(dir: &Path, txns: &[u64]) -> Vec<u8> {
        std::fs::create_dir_all(dir).unwrap();
        let mut e = engine::open("lmdb", &[], dir).unwrap();
        e.create_schema(&DataModel::KeyValue(model())).unwrap();
        insert(e.as_mut(), 0, PRELOAD).unwrap();
        for &t in txns {
            insert(e.as_mut(), t, 3).unwrap();
        }
        drop(e);
        std::fs::read(dir.join("data.mdb")).unwrap()
    }

    /// A recording built by hand: LMDB's file after commit 1; commit 2 written and acknowledged
    /// without a sync; then a write holding commit 3 but not 2, synced, and acknowledged. Under
    /// the strict model the synced write is what the disk holds after the last call, and LMDB's
    /// recovery opens it: 2 is missing while 3 is present, named as an ordering violation.
    #[test]
    fn a_hand_built_recording_leaves_an_ordering_violation_that_is_named() {
        use crate::durability::fsrec::{model::Model, state::Builder, Recording};
        let scratch = tempfile::tempdir().unwrap();
        let dirs = ["after-1", "after-2", "only-3", "state"].map(|d| scratch.path().join(d));
        let after_1 = lmdb_file(&dirs[0], &[1]);
        let after_2 = lmdb_file(&dirs[1], &[1, 2]);
        let only_3 = lmdb_file(&dirs[2], &[1, 3]);
        let mut rec = Recording::new(vec![("data.mdb".into(), after_1)], vec![]);
        let file = rec.inode_at("data.mdb").unwrap();
        rec.ack(0);
        rec.ack(1);
        rec.write(file, 0, &after_2);
        rec.ack(2);
        rec.write(file, 0, &only_3);
        rec.sync(file);
        rec.ack(3);
        let after_all = rec.ops.len();
        let acknowledged = rec.acknowledged(after_all);
        let mut b = Builder::new(rec, Model::Strict);
        let space = b.space(after_all);
        let choice = space.choice(&b.rec, 0, 4, 1);
        let (image, _) = b.state(&space, &choice);
        image.write_out(&dirs[3]).unwrap();
        let r = check_state("lmdb", &[], &dirs[3], acknowledged, 5, 3);
        assert_eq!((r.acknowledged, r.lost, r.partial), (3, 1, 0), "{r:?}");
        assert_eq!(r.integrity, None);
        assert_eq!(
            r.ordering.as_deref(),
            Some("transaction 2 (acknowledged) is missing or incomplete while 3 (acknowledged after it) is present; 1 acknowledged transaction(s) missing before 3")
        );
        assert!(r
            .text("--replay-crash 1:7")
            .contains("ordering: transaction 2"));
    }
}

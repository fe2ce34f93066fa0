//! Power loss for any engine, from a recording of its file-system calls. The workload runs
//! once in a child process (`__durability-child`, the same as the process-crash model's)
//! with the LD_PRELOAD recorder (`recorder.c`, embedded in the binary and written out when it
//! runs), which logs every write, truncate, sync and directory operation under the database's
//! directory and the acknowledgement each one preceded. Each crash point is then a place in
//! that recording: the persistence model ([`fsrec::model`]) says what the disk may hold
//! there; [`fsrec::state`] builds it as a directory; the engine opens it as the next launch
//! would (its own recovery) and it is read back in full against the acknowledgements.
//!
//! Native engines (LMDB, RocksDB, LevelDB, BerkeleyDB), SQLite, redb and the JVM engines (whose
//! workload and checker run in a JVM, [`super::jvm`]) all go through libc, so one recorder
//! serves them all. The events are the recorded calls (acknowledgements
//! included), numbered from 1; crash point `p` keeps calls `1..p`.
//!
//! Behind the default feature `recorded-models`: the recorder needs a dynamically linked
//! binary (a static one ignores LD_PRELOAD), so the static device builds leave the recorded
//! models out, embed no recorder, and refuse those models before any work.

use super::checker::{self, Checker};
use super::fsrec::model::{Fate, Model};
use super::fsrec::state::Builder;
use super::fsrec::{Recording, MAX_LOG};
use super::killed::Config as Killed;
use super::scratch::{BASE, WORK};
use super::sqlite::ACKS;
use super::{Plan, PointResult, Subject};
use crate::error::{Error, Result, ResultExt};
use std::cell::RefCell;
use std::path::{Path, PathBuf};

/// Whether this build has the recorded models (feature `recorded-models`).
pub const AVAILABLE: bool = cfg!(feature = "recorded-models");

/// The recorder, built by build.rs for this target (empty where it cannot be, and without
/// the feature `recorded-models`).
const RECORDER: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/pocketbench_recorder.so"));

/// The recorder's file name in the scratch directory.
const RECORDER_FILE: &str = "recorder.so";

/// One engine configuration under one persistence model.
pub struct Config {
    pub inner: Killed,
    pub model: Model,
    /// The recording and its crash states, once made.
    built: RefCell<Option<Builder>>,
}

impl Config {
    pub fn new(
        engine: &'static str,
        options: Vec<(String, String)>,
        trace: Option<super::traced::Traced>,
        model: Model,
    ) -> Self {
        Config {
            inner: Killed {
                engine,
                options,
                trace,
                start_us: Default::default(),
            },
            model,
            built: RefCell::new(None),
        }
    }
}

/// Every file and directory under `root`, relative to it.
fn snapshot(root: &Path) -> Result<Recording> {
    let (mut files, mut dirs) = (Vec::new(), Vec::new());
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let here = root.join(&rel);
        for entry in std::fs::read_dir(&here).run_err(format!("reading {}", here.display()))? {
            let entry = entry.run_err("reading a directory")?;
            let name = rel.join(entry.file_name());
            let text = name.to_string_lossy().into_owned();
            if entry.file_type().run_err("reading a directory")?.is_dir() {
                dirs.push(text);
                stack.push(name);
            } else {
                let bytes = std::fs::read(entry.path())
                    .run_err(format!("reading {}", entry.path().display()))?;
                files.push((text, bytes));
            }
        }
    }
    Ok(Recording::new(files, dirs))
}

/// Run the workload once under the recorder in `dir` and read the recording.
pub fn record(inner: &Killed, dir: &Path, plan: &Plan) -> Result<Recording> {
    if RECORDER.is_empty() {
        return Err(Error::failed(
            "the file-system recorder is not available in this build (it needs a dynamically linked binary): use --model vfs or process-crash",
        ));
    }
    if crate::run::child::self_command()?.1.is_some() {
        return Err(Error::failed(
            "the file-system recorder cannot be preloaded into a child run through a runner",
        ));
    }
    let lib = dir.join(RECORDER_FILE);
    std::fs::write(&lib, RECORDER).run_err(format!("writing {}", lib.display()))?;
    let canon = dir
        .canonicalize()
        .run_err(format!("resolving {}", dir.display()))?;
    let log = canon.join("calls.rec");
    let env = [
        ("LD_PRELOAD", lib.into_os_string()),
        ("POCKETBENCH_REC_ROOT", canon.join(WORK).into_os_string()),
        ("POCKETBENCH_REC_LOG", log.clone().into_os_string()),
        ("POCKETBENCH_REC_ACKS", canon.join(ACKS).into_os_string()),
    ];
    inner.run_child(dir, plan, None, &env)?;
    let size = std::fs::metadata(&log)
        .run_err(format!("reading {}", log.display()))?
        .len();
    if size > MAX_LOG {
        return Err(Error::failed(format!(
            "{}: the recording is {size} bytes, over the {MAX_LOG} bound: fewer --txns",
            log.display()
        )));
    }
    let bytes = std::fs::read(&log).run_err(format!("reading {}", log.display()))?;
    let _ = std::fs::remove_file(&log);
    snapshot(&dir.join(BASE))?.parse(&bytes, &log.display().to_string())
}

impl Config {
    /// Open and check the crash state in `state` in this configuration's checker process
    /// ([`checker`]: `__durability-child --check-stdin`, or the checker JVM of a JVM engine):
    /// an engine may die on a damaged file (LMDB maps it and takes SIGBUS past its end),
    /// which is then an integrity failure with the signal.
    fn check_in_child(
        &self,
        dir: &Path,
        state: &Path,
        plan: &Plan,
        acknowledged: u64,
    ) -> Result<PointResult> {
        let lib = dir.join(RECORDER_FILE);
        let (engine, options) = (self.inner.engine, &self.inner.options);
        if super::jvm::is_jvm(engine) {
            return super::jvm::check(engine, options, dir, state, acknowledged, plan, Some(&lib));
        }
        let key = format!("{engine} {options:?} {}", dir.display());
        let start = || -> Result<Checker> {
            let (mut cmd, _) = crate::run::child::self_command()?;
            cmd.arg("__durability-child")
                .arg(engine)
                .arg(state)
                .arg(dir.join(ACKS))
                .arg(plan.txns.to_string())
                .arg(plan.rows_per_txn.to_string())
                .arg("--check-stdin");
            for (k, v) in options {
                cmd.arg(format!("{k}={v}"));
            }
            if let Some(t) = &self.inner.trace {
                cmd.arg("--trace").arg(t.path(dir));
                if t.is_sql() {
                    cmd.arg("--digests")
                        .arg(dir.join(super::traced::DIGESTS_FILE));
                }
            }
            // The recorder, preloaded with nothing to record, turns the checker's syncs into
            // no-ops: the crash state is scratch, and a WAL recovery's checkpoint would
            // otherwise wait for the disk at every state.
            cmd.env("LD_PRELOAD", &lib);
            Checker::spawn(
                key.clone(),
                "the checker process",
                cmd,
                dir.join("checker.err"),
            )
        };
        let request = format!("{acknowledged}\t{}", state.display());
        let clean = |r: &PointResult| r.integrity.is_none();
        Ok(match checker::ask(&key, start, &request, clean)? {
            Ok(r) => r,
            Err(why) => PointResult {
                integrity: Some(why),
                ..PointResult::default()
            },
        })
    }
}

impl Subject for Config {
    fn engine(&self) -> &'static str {
        self.inner.engine
    }

    fn config(&self) -> Vec<(String, String)> {
        self.inner.options.clone()
    }

    fn model(&self, _torn: bool) -> String {
        format!(
            "power loss, {} persistence model, from a recording of the file-system calls",
            self.model.name()
        )
    }

    fn prepare(&self, dir: &Path) -> Result<()> {
        self.inner.prepare(dir)
    }

    fn count_events(&self, dir: &Path, plan: &Plan) -> Result<u64> {
        self.inner.digests(dir, plan)?;
        let rec = record(&self.inner, dir, plan)?;
        let events = rec.ops.len() as u64;
        *self.built.borrow_mut() = Some(Builder::new(rec, self.model));
        Ok(events)
    }

    fn first_point(&self) -> u64 {
        self.built
            .borrow()
            .as_ref()
            .map_or(1, |b| b.rec.workload_start())
    }

    fn states(&self, plan: &Plan, point: u64) -> u64 {
        self.built
            .borrow()
            .as_ref()
            .map_or(1, |b| b.space(point as usize - 1).states(plan.states))
    }

    fn crash_at(&self, dir: &Path, plan: &Plan, point: u64, state: u64) -> Result<PointResult> {
        let mut built = self.built.borrow_mut();
        let b = built
            .as_mut()
            .ok_or_else(|| Error::failed("crash before the recording"))?;
        let before = (point.max(1) - 1) as usize;
        let space = b.space(before);
        let choice = space.choice(&b.rec, state, plan.states, plan.seed);
        let target = dir.join("state");
        let fates = b.write_state(&space, &choice, &target)?;
        let acknowledged = b.rec.acknowledged(before);
        let mut r = PointResult {
            point,
            state,
            acknowledged,
            in_flight: (acknowledged < plan.txns).then_some(acknowledged + 1),
            ..PointResult::default()
        };
        if plan.replay.is_some() {
            r.calls = fates
                .iter()
                .enumerate()
                .filter_map(|(k, f)| {
                    let what = b.rec.describe(space.first_open + k);
                    match f {
                        Fate::Kept => None,
                        Fate::Lost => Some(format!("lost: {what}")),
                        Fate::Torn(s) => Some(format!(
                            "torn ({} of {} sectors kept): {what}",
                            s.iter().filter(|&&k| k).count(),
                            s.len()
                        )),
                    }
                })
                .collect();
        }
        if let (Some(d), Some(_)) = (&plan.replay_dir, plan.replay) {
            crate::output::folder::check(d, "--replay-dir")?;
            b.state(&space, &choice).0.write_out(d)?;
            crate::output::folder::mark(d)?;
        }
        let found = self.check_in_child(dir, &target, plan, acknowledged)?;
        if self.inner.trace.is_some() {
            r.in_flight = found.in_flight;
        }
        r.recovery_ns = found.recovery_ns;
        r.lost = found.lost;
        r.partial = found.partial;
        r.phantom = found.phantom;
        r.integrity = found.integrity;
        r.inconsistent = found.inconsistent;
        Ok(r)
    }

    fn speed(&self, dir: &Path, plan: &Plan) -> Result<f64> {
        self.inner.speed(dir, plan)
    }
}

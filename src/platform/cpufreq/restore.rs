//! Putting the device back the way we found it, whatever happens to the run.
//!
//! Every sysfs file pocketbench writes is first recorded here with its original value, in
//! memory and in a journal file under the temporary directory. The originals are written back
//! (newest first):
//! * when the run ends normally or with an error ([`restore_owner`], called by the guard's `Drop`,
//!   which also covers panics, since they unwind);
//! * on SIGINT (Ctrl-C), SIGTERM, SIGHUP and SIGQUIT: every recorded file is also handed to
//!   `platform::signals`, whose handler writes the originals back (with system calls only),
//!   stops the child processes and then dies of the signal so the exit status still says what
//!   happened;
//! * after SIGKILL or power loss, which no process can catch: the journal survives, and the
//!   next pocketbench run that controls cpufreq (or `pocketbench doctor --restore`) restores
//!   it first ([`restore_leftover`]).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// A file written by pocketbench and the value it held before.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Touched {
    pub path: PathBuf,
    pub original: String,
}

/// The journal of one run that touched files under one sysfs root.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Journal {
    pub pid: i32,
    pub sysfs_root: PathBuf,
    pub files: Vec<Touched>,
}

struct Entry {
    owner: u64,
    root: PathBuf,
    touched: Touched,
    /// Written back by the signal handler while the entry lives.
    _on_signal: crate::platform::signals::Slot<crate::platform::signals::Original>,
}

struct Registry {
    files: Vec<Entry>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry { files: Vec::new() });

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

/// A fresh owner id for one set of changes (one governor setting).
pub fn new_owner() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Where the journal for `sysfs_root` lives.
pub fn journal_path(sysfs_root: &Path) -> PathBuf {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in sysfs_root.as_os_str().as_encoded_bytes() {
        h = (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3);
    }
    std::env::temp_dir().join(format!("pocketbench-restore-{h:016x}.json"))
}

/// Record `touched` (on behalf of `owner`) before it is first written, and rewrite the journal.
pub fn record(owner: u64, sysfs_root: &Path, touched: Touched) -> std::io::Result<()> {
    let mut r = registry();
    if r.files.iter().any(|e| e.touched.path == touched.path) {
        return Ok(());
    }
    let on_signal = crate::platform::signals::restore_on_signal(
        &touched.path,
        &touched.original,
        &journal_path(sysfs_root),
    );
    r.files.push(Entry {
        owner,
        root: sysfs_root.to_path_buf(),
        touched,
        _on_signal: on_signal,
    });
    sync_journal(&r.files, sysfs_root, &[])
}

/// Rewrite (or remove) the journal of `root` to hold the registry's entries plus `failed`.
fn sync_journal(entries: &[Entry], root: &Path, failed: &[Touched]) -> std::io::Result<()> {
    let path = journal_path(root);
    let mut files: Vec<Touched> = failed.to_vec();
    files.extend(
        entries
            .iter()
            .filter(|e| e.root == root)
            .map(|e| e.touched.clone()),
    );
    if files.is_empty() {
        return match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        };
    }
    let j = Journal {
        pid: std::process::id() as i32,
        sysfs_root: root.to_path_buf(),
        files,
    };
    let tmp = path.with_extension("json.partial");
    std::fs::write(&tmp, serde_json::to_vec_pretty(&j).unwrap_or_default())?;
    std::fs::rename(&tmp, path)
}

/// Number of files currently awaiting restore.
pub fn pending() -> usize {
    registry().files.len()
}

/// Write back every original recorded by `owner`, newest first. Returns how many files were
/// restored and one message per file that could not be (those stay in the journal for a later
/// attempt).
pub fn restore_owner(owner: u64) -> (usize, Vec<String>) {
    restore_where(|e| e.owner == owner)
}

fn restore_where(pick: impl Fn(&Entry) -> bool) -> (usize, Vec<String>) {
    let mut r = registry();
    let (mine, rest): (Vec<Entry>, Vec<Entry>) = std::mem::take(&mut r.files)
        .into_iter()
        .partition(|e| pick(e));
    r.files = rest;
    let touched: Vec<Touched> = mine.iter().map(|e| e.touched.clone()).collect();
    let (errors, failed) = restore_files(&touched);
    let mut roots: Vec<&PathBuf> = mine.iter().map(|e| &e.root).collect();
    roots.sort();
    roots.dedup();
    for root in roots {
        let failed_here: Vec<Touched> = failed
            .iter()
            .filter(|t| mine.iter().any(|e| &e.root == root && e.touched == **t))
            .cloned()
            .collect();
        let _ = sync_journal(&r.files, root, &failed_here);
    }
    (touched.len() - failed.len(), errors)
}

/// Restore `files` newest first; returns the error messages and the files that failed.
fn restore_files(files: &[Touched]) -> (Vec<String>, Vec<Touched>) {
    let mut errors = Vec::new();
    let mut failed = Vec::new();
    for t in files.iter().rev() {
        let mut result = super::write_attr(&t.path, &t.original);
        if result.is_err() {
            // A min/max pair can refuse one order and accept the other: try once more at the end.
            std::thread::sleep(std::time::Duration::from_millis(1));
            result = super::write_attr(&t.path, &t.original);
        }
        if let Err(e) = result {
            errors.push(format!(
                "{}: could not restore `{}`: {e}",
                t.path.display(),
                t.original
            ));
            failed.push(t.clone());
        }
    }
    (errors, failed)
}

/// A run that was killed without restoring leaves its journal behind; restore it now. Returns
/// what was done, for the user, or `None` when there was nothing to do (or its process is
/// still alive and will restore on its own).
pub fn restore_leftover(sysfs_root: &Path) -> Option<String> {
    let path = journal_path(sysfs_root);
    let j = leftover(sysfs_root)?;
    let (errors, _) = restore_files(&j.files);
    if errors.is_empty() {
        let _ = std::fs::remove_file(&path);
        Some(format!(
            "restored {} cpufreq file(s) left changed by an interrupted run (pid {}, journal {})",
            j.files.len(),
            j.pid,
            path.display()
        ))
    } else {
        Some(format!(
            "an interrupted run (pid {}) left cpufreq changed and restoring failed: {}",
            j.pid,
            errors.join("; ")
        ))
    }
}

/// The journal of a dead run under `sysfs_root`, if one is there.
pub fn leftover(sysfs_root: &Path) -> Option<Journal> {
    let text = std::fs::read(journal_path(sysfs_root)).ok()?;
    let j: Journal = serde_json::from_slice(&text).ok()?;
    let alive = j.pid != std::process::id() as i32
        // SAFETY: signal 0 only checks that the process exists.
        && unsafe { libc::kill(j.pid, 0) } == 0;
    (!alive && !j.files.is_empty()).then_some(j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn leftover_journal_of_a_dead_run_is_restored() {
        let t = Tree::big_little();
        let gov = t.path("devices/system/cpu/cpufreq/policy0/scaling_governor");
        // A journal left by a process that no longer exists (pid beyond pid_max).
        let j = Journal {
            pid: i32::MAX - 1,
            sysfs_root: t.root().to_path_buf(),
            files: vec![Touched {
                path: gov.clone(),
                original: "schedutil".into(),
            }],
        };
        std::fs::write(journal_path(t.root()), serde_json::to_vec(&j).unwrap()).unwrap();
        t.write(
            "devices/system/cpu/cpufreq/policy0/scaling_governor",
            "performance",
        );
        let msg = restore_leftover(t.root()).expect("a leftover journal");
        assert!(msg.contains("restored 1 cpufreq file"), "{msg}");
        assert_eq!(
            t.read("devices/system/cpu/cpufreq/policy0/scaling_governor"),
            "schedutil"
        );
        assert!(!journal_path(t.root()).exists());
        assert!(restore_leftover(t.root()).is_none());
    }
}

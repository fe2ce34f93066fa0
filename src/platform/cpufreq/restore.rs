//! Putting the device back the way we found it, whatever happens to the run.
//!
//! Every sysfs file pocketbench writes is first recorded here with its original value, in
//! memory and in a journal file under the temporary directory. The originals are written back
//! (newest first):
//! * when the run ends normally or with an error ([`restore_all`], called by the guard's `Drop`,
//!   which also covers panics, since they unwind);
//! * on SIGINT (Ctrl-C), SIGTERM, SIGHUP and SIGQUIT: [`install_signal_handling`] blocks those
//!   signals in every thread and waits for them on a thread of its own, which stops the child
//!   processes it knows about (the replay process, a background command), restores, and then
//!   re-raises the signal with its default action so the exit status still says what happened;
//! * after SIGKILL or power loss, which no process can catch: the journal survives, and the
//!   next pocketbench run that controls cpufreq (or `pocketbench doctor --restore`) restores
//!   it first ([`restore_leftover`]).

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard, Once};

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
}

struct Registry {
    files: Vec<Entry>,
    children: Vec<(i32, bool)>,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    files: Vec::new(),
    children: Vec::new(),
});

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
    r.files.push(Entry {
        owner,
        root: sysfs_root.to_path_buf(),
        touched,
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

/// Write back every recorded original (the signal path). Safe to call more than once.
pub fn restore_all() -> (usize, Vec<String>) {
    restore_where(|_| true)
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

/// Remember a child process (or, with `group`, its whole process group) to stop on a signal.
pub fn register_child(pid: u32, group: bool) {
    registry().children.push((pid as i32, group));
}

pub fn unregister_child(pid: u32) {
    registry().children.retain(|(p, _)| *p != pid as i32);
}

const SIGNALS: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// Block the terminating signals in this thread (and so in every thread it starts later) and
/// handle them on a dedicated thread. Call before starting any other thread; idempotent.
/// A blocked mask is inherited across `exec`: start child processes with [`unblocked`].
pub fn install_signal_handling() {
    static ONCE: Once = Once::new();
    ONCE.call_once(|| {
        let set = signal_set();
        // SAFETY: valid sigset; only this thread's mask changes.
        unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) };
        let _ = std::thread::Builder::new()
            .name("pocketbench-signals".into())
            .spawn(move || loop {
                let mut sig: libc::c_int = 0;
                // SAFETY: valid set and out-pointer.
                if unsafe { libc::sigwait(&set, &mut sig) } == 0 {
                    on_signal(sig);
                }
            });
    });
}

/// Make `cmd`'s process start with the terminating signals unblocked (they are blocked here
/// once [`install_signal_handling`] ran, and a signal mask survives `exec`).
pub fn unblocked(cmd: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    let set = signal_set();
    // SAFETY: pthread_sigmask is async-signal-safe and `set` is a plain copied value.
    unsafe {
        cmd.pre_exec(move || {
            libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
            Ok(())
        })
    }
}

fn signal_set() -> libc::sigset_t {
    // SAFETY: sigemptyset initialises the set before use.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for s in SIGNALS {
            libc::sigaddset(&mut set, s);
        }
        set
    }
}

static TERMINATING: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Whether a terminating signal is being handled. A thread that sees its child process die
/// should then wait (see [`wait_if_terminating`]) instead of reporting a failure: the process
/// is about to die of the signal.
pub fn terminating() -> bool {
    TERMINATING.load(std::sync::atomic::Ordering::Acquire)
}

/// Block this thread forever if the process is terminating on a signal.
pub fn wait_if_terminating() {
    while terminating() {
        std::thread::park();
    }
}

fn on_signal(sig: libc::c_int) {
    // A command waiting for Ctrl-C (`platform::interrupt`) ends its wait instead.
    if crate::platform::interrupt::take(sig) {
        return;
    }
    TERMINATING.store(true, std::sync::atomic::Ordering::Release);
    let children = std::mem::take(&mut registry().children);
    for (pid, group) in children {
        // SAFETY: plain kill(2); a process that already exited just yields ESRCH.
        unsafe { libc::kill(if group { -pid } else { pid }, libc::SIGTERM) };
    }
    let (restored, errors) = restore_all();
    crate::platform::cleanup::remove_all();
    let name = match sig {
        libc::SIGINT => "SIGINT",
        libc::SIGTERM => "SIGTERM",
        libc::SIGHUP => "SIGHUP",
        _ => "SIGQUIT",
    };
    if restored + errors.len() > 0 {
        eprintln!(
            "pocketbench: {name}: restored {restored} of {} cpufreq file(s)",
            restored + errors.len()
        );
    }
    for e in &errors {
        eprintln!("pocketbench: {e}");
    }
    // Die of the same signal, so the parent shell sees the usual status.
    // SAFETY: resetting the disposition, unblocking in this thread and raising are all valid.
    unsafe {
        libc::signal(sig, libc::SIG_DFL);
        let mut one: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut one);
        libc::sigaddset(&mut one, sig);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &one, std::ptr::null_mut());
        libc::raise(sig);
    }
    std::process::exit(128 + sig);
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

//! Work folders left behind by a process that could not clean up (`kill -9`, power loss):
//! every temporary directory pocketbench makes holds a small file naming its owning process
//! (pid and start time, so a reused pid is not mistaken for the owner); the next `run` and
//! `doctor` find `pocketbench-*` folders in the temporary directory whose owner is gone, say
//! so and remove them. A folder whose owner is alive, or that names no owner, is never touched.

use std::path::{Path, PathBuf};

/// The owner file inside each work folder.
pub const OWNER_FILE: &str = ".pocketbench-owner";

/// This process's start time in clock ticks since boot (field 22 of `/proc/PID/stat`).
fn start_time(pid: u32) -> Option<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    rest.split_whitespace().nth(22 - 3)?.parse().ok()
}

/// Write the owner file (this process) into `dir`.
pub fn mark_owner(dir: &Path) -> std::io::Result<()> {
    let pid = std::process::id();
    let start = start_time(pid).unwrap_or(0);
    std::fs::write(dir.join(OWNER_FILE), format!("{pid} {start}\n"))
}

/// Whether the process named by an owner file's text is gone.
fn owner_gone(text: &str) -> bool {
    let mut it = text.split_whitespace().map(str::parse::<u64>);
    let (Some(Ok(pid)), Some(Ok(start))) = (it.next(), it.next()) else {
        return false;
    };
    let Ok(pid) = u32::try_from(pid) else {
        return false;
    };
    match start_time(pid) {
        None => true,
        // The pid is someone else's now (or the owner recorded no start time: alive).
        Some(now) => start != 0 && now != start,
    }
}

/// A stale work folder: where it is and the process that owned it.
#[derive(Debug, serde::Serialize)]
pub struct Stale {
    pub path: PathBuf,
    pub pid: u64,
    /// It was removed (else removing it failed).
    pub removed: bool,
}

/// Find the `pocketbench-*` folders in `dir` whose owner is gone, and remove them.
pub fn sweep(dir: &Path) -> Vec<Stale> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for e in entries.flatten() {
        if !e.file_name().to_string_lossy().starts_with("pocketbench-") {
            continue;
        }
        let path = e.path();
        let Ok(text) = std::fs::read_to_string(path.join(OWNER_FILE)) else {
            continue;
        };
        if owner_gone(&text) {
            let pid = text.split_whitespace().next().and_then(|p| p.parse().ok());
            let removed = std::fs::remove_dir_all(&path).is_ok();
            found.push(Stale {
                path,
                pid: pid.unwrap_or(0),
                removed,
            });
        }
    }
    found
}

/// [`sweep`] the system's temporary directory, saying on stderr what was found.
pub fn sweep_and_say() -> Vec<Stale> {
    let found = sweep(&std::env::temp_dir());
    for s in &found {
        eprintln!(
            "pocketbench: note: {} was left by process {}, which is gone: {}",
            s.path.display(),
            s.pid,
            if s.removed {
                "removed"
            } else {
                "could not remove it"
            }
        );
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_folders_of_gone_owners_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let mine = dir.path().join("pocketbench-live");
        let gone = dir.path().join("pocketbench-gone");
        let unmarked = dir.path().join("pocketbench-unmarked");
        for d in [&mine, &gone, &unmarked] {
            std::fs::create_dir(d).unwrap();
        }
        mark_owner(&mine).unwrap();
        // pid_max is at most 2^22: this pid cannot exist.
        std::fs::write(gone.join(OWNER_FILE), "4194305 1\n").unwrap();
        let found = sweep(dir.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!((found[0].pid, found[0].removed), (4194305, true));
        assert!(mine.exists() && unmarked.exists() && !gone.exists());
    }
}

//! Temporary files and directories to remove if the process is ended by a signal. Whatever a
//! command creates only for its own use (a run's work directory, a partial output file, a
//! storage test directory) is registered here while it exists; on SIGINT, SIGTERM, SIGHUP or
//! SIGQUIT the signal thread (`cpufreq::restore`) removes everything still registered before
//! the process dies of the signal (exit status 128 + signal number: 130, 143). Removal is
//! idempotent and races neither way: a directory is removed while still registered, with the
//! registry held, so a signal arriving mid-removal waits for it and then finds it gone; and
//! removal is retried while a dying child process still adds files. Each temporary directory
//! names its owning process (`stale`), so one left by a `kill -9` can be found and removed.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

fn registry() -> MutexGuard<'static, Vec<PathBuf>> {
    static PATHS: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
    PATHS.lock().unwrap_or_else(|p| p.into_inner())
}

/// Removes `path` (a file, or a directory with everything in it) on a terminating signal for
/// as long as the guard lives; dropping the guard only forgets the path (its owner removes it
/// or keeps it).
#[derive(Debug)]
pub struct Guard {
    path: PathBuf,
}

impl Guard {
    pub fn new(path: &Path) -> Guard {
        let path = absolute(path);
        registry().push(path.clone());
        Guard { path }
    }

    /// Create something with `make` and register the path it returns, with the registry
    /// locked throughout, so a signal can never fall between the two and leave it behind.
    pub fn create<T>(
        make: impl FnOnce() -> std::io::Result<(T, PathBuf)>,
    ) -> std::io::Result<(T, Guard)> {
        let mut r = registry();
        let (made, path) = make()?;
        let path = absolute(&path);
        r.push(path.clone());
        Ok((made, Guard { path }))
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

impl Drop for Guard {
    fn drop(&mut self) {
        let mut r = registry();
        if let Some(i) = r.iter().rposition(|p| *p == self.path) {
            r.remove(i);
        }
    }
}

/// A private temporary directory, removed when dropped and also on a terminating signal.
#[derive(Debug)]
pub struct TempDir {
    _guard: Guard,
    path: PathBuf,
}

impl TempDir {
    /// A new directory named `PREFIX…` inside `parent` (the system's temporary directory when
    /// `None`), marked with this process as its owner.
    pub fn new(prefix: &str, parent: Option<&Path>) -> std::io::Result<TempDir> {
        let (path, guard) = Guard::create(|| {
            let mut b = tempfile::Builder::new();
            b.prefix(prefix);
            let dir = match parent {
                Some(p) => b.tempdir_in(p)?,
                None => b.tempdir()?,
            };
            super::stale::mark_owner(dir.path())?;
            let path = dir.keep();
            Ok((path.clone(), path))
        })?;
        Ok(TempDir {
            _guard: guard,
            path,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        // Removed while registered and with the registry held: a signal now waits for it.
        let r = registry();
        remove(std::slice::from_ref(&self.path));
        drop(r);
    }
}

/// Remove every registered path (called on a terminating signal). Returns how many were
/// removed.
pub fn remove_all() -> usize {
    let paths = std::mem::take(&mut *registry());
    remove(&paths)
}

fn remove(paths: &[PathBuf]) -> usize {
    paths.iter().rev().filter(|p| remove_path(p)).count()
}

/// Remove a file or a directory tree; true when it is gone (or never was). A child process
/// that is being stopped may still create a file meanwhile: tried again, a bounded number of
/// times.
pub fn remove_path(p: &Path) -> bool {
    for _ in 0..50 {
        let r = match std::fs::symlink_metadata(p) {
            Err(_) => return true,
            Ok(m) if m.is_dir() => std::fs::remove_dir_all(p),
            Ok(_) => std::fs::remove_file(p),
        };
        if r.is_ok() {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The registered paths under `dir`.
    fn registered_under(dir: &Path) -> Vec<PathBuf> {
        registry()
            .iter()
            .filter(|p| p.starts_with(dir))
            .cloned()
            .collect()
    }

    #[test]
    fn registered_paths_are_removed_and_dropped_guards_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept");
        let temp = dir.path().join("work");
        std::fs::create_dir(&temp).unwrap();
        std::fs::write(temp.join("db"), b"x").unwrap();
        std::fs::write(&kept, b"x").unwrap();
        // Other tests register paths of their own at the same time: look only under `dir`.
        let g = Guard::new(&temp);
        drop(Guard::new(&kept));
        let mine = registered_under(dir.path());
        assert_eq!(mine, std::slice::from_ref(&temp));
        assert_eq!(remove(&mine), 1);
        assert!(!temp.exists());
        assert!(kept.exists());
        drop(g);
        assert!(registered_under(dir.path()).is_empty());
    }
}

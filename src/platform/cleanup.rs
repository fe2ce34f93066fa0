//! Temporary files and directories to remove if the process is ended by a signal. Whatever a
//! command creates only for its own use (a run's work directory, a partial output file, a
//! storage test directory) is registered here while it exists; on SIGINT, SIGTERM, SIGHUP or
//! SIGQUIT the signal thread (`cpufreq::restore`) removes everything still registered before
//! the process dies of the signal (exit status 128 + signal number: 130, 143).

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
    // Field order: forget the path before the directory goes.
    _guard: Guard,
    dir: tempfile::TempDir,
}

impl TempDir {
    /// A new directory named `PREFIX…` inside `parent` (the system's temporary directory when
    /// `None`).
    pub fn new(prefix: &str, parent: Option<&Path>) -> std::io::Result<TempDir> {
        let (dir, guard) = Guard::create(|| {
            let mut b = tempfile::Builder::new();
            b.prefix(prefix);
            let dir = match parent {
                Some(p) => b.tempdir_in(p)?,
                None => b.tempdir()?,
            };
            let path = dir.path().to_path_buf();
            Ok((dir, path))
        })?;
        Ok(TempDir { _guard: guard, dir })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// Remove every registered path (called on a terminating signal). Returns how many were
/// removed.
pub fn remove_all() -> usize {
    let paths = std::mem::take(&mut *registry());
    remove(&paths)
}

fn remove(paths: &[PathBuf]) -> usize {
    paths
        .iter()
        .rev()
        .filter(|p| {
            if p.is_dir() {
                std::fs::remove_dir_all(p).is_ok()
            } else {
                std::fs::remove_file(p).is_ok()
            }
        })
        .count()
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

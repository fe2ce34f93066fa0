//! Temporary files and directories to remove if the process is ended by a signal. Whatever a
//! command creates only for its own use (a run's work directory, a partial output file, a
//! storage test directory) is registered here while it exists; on SIGINT, SIGTERM, SIGHUP or
//! SIGQUIT the signal handler (`signals`) removes everything still registered before the
//! process dies of the signal (exit status 128 + signal number: 130, 143). Removal is
//! idempotent and races neither way: a path is registered in the same breath as it is created
//! (signals held off between the two), a directory is removed while still registered, so a
//! signal arriving mid-removal finishes the job; and removal is retried while a dying child
//! process still adds files. Each temporary directory names its owning process (`stale`), so
//! one left by a `kill -9` can be found and removed.

use super::signals::{Critical, Slot, TempPath};
use std::path::{Path, PathBuf};

/// Removes `path` (a file, or a directory with everything in it) on a terminating signal for
/// as long as the guard lives; dropping the guard only forgets the path (its owner removes it
/// or keeps it).
#[derive(Debug)]
pub struct Guard {
    _slot: Slot<TempPath>,
}

impl Guard {
    pub fn new(path: &Path) -> Guard {
        Guard {
            _slot: super::signals::remove_on_signal(&absolute(path)),
        }
    }

    /// Create something with `make` and register the path it returns, with the terminating
    /// signals held off throughout, so a signal can never fall between the two and leave it
    /// behind.
    pub fn create<T>(
        make: impl FnOnce() -> std::io::Result<(T, PathBuf)>,
    ) -> std::io::Result<(T, Guard)> {
        let _critical = Critical::enter();
        let (made, path) = make()?;
        Ok((made, Guard::new(&path)))
    }
}

fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
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
        // Removed while still registered: a signal meanwhile removes it too.
        remove_path(&self.path);
    }
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

    #[test]
    fn registered_paths_are_removed_on_a_signal_and_dropped_guards_forgotten() {
        let dir = tempfile::tempdir().unwrap();
        let kept = dir.path().join("kept");
        let temp = dir.path().join("work");
        std::fs::create_dir(&temp).unwrap();
        std::fs::write(temp.join("db"), b"x").unwrap();
        std::fs::write(&kept, b"x").unwrap();
        // Other tests register paths of their own at the same time: look only under `dir`.
        let g = Guard::new(&temp);
        drop(Guard::new(&kept));
        let mine = super::super::signals::paths_under(dir.path());
        assert_eq!(mine, std::slice::from_ref(&temp));
        drop(g);
        assert!(super::super::signals::paths_under(dir.path()).is_empty());
        let t = TempDir::new("pocketbench-test-", Some(dir.path())).unwrap();
        let path = t.path().to_path_buf();
        assert_eq!(
            super::super::signals::paths_under(dir.path()),
            std::slice::from_ref(&path)
        );
        drop(t);
        assert!(!path.exists());
        assert!(super::super::signals::paths_under(dir.path()).is_empty());
        assert!(kept.exists());
    }
}

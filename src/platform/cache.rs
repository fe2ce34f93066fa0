//! Page-cache state before a measured phase: evicting a database's files so the replay starts
//! cold, the way an app's first queries after launch do.

use serde::{Deserialize, Serialize};
use std::path::Path;

/// What was done to the page cache, and whether it worked.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct CacheState {
    /// `cold` (files evicted), `cold-drop-caches` (whole page cache dropped) or `warm`.
    pub state: String,
    /// How eviction was done, or why it was partial.
    pub method: String,
}

impl CacheState {
    pub fn warm() -> Self {
        CacheState {
            state: "warm".into(),
            method: "same process, nothing evicted (--warm)".into(),
        }
    }
}

/// Flush and evict every regular file in `dir` from the page cache with
/// `posix_fadvise(POSIX_FADV_DONTNEED)`; with `drop_all`, also write 3 to
/// /proc/sys/vm/drop_caches (root only; reported when refused).
pub fn evict_dir(dir: &Path, drop_all: bool) -> CacheState {
    let mut evicted = 0usize;
    let mut failures = Vec::new();
    if let Ok(entries) = std::fs::read_dir(dir) {
        for entry in entries.flatten() {
            let path = entry.path();
            if !path.is_file() {
                continue;
            }
            match evict_file(&path) {
                Ok(()) => evicted += 1,
                Err(e) => failures.push(format!("{}: {e}", path.display())),
            }
        }
    }
    let mut method = format!("posix_fadvise(DONTNEED) on {evicted} file(s)");
    if !failures.is_empty() {
        method.push_str(&format!("; failed: {}", failures.join(", ")));
    }
    if drop_all {
        // SAFETY: sync() has no arguments and cannot fail.
        unsafe { libc::sync() };
        match std::fs::write("/proc/sys/vm/drop_caches", "3\n") {
            Ok(()) => {
                method.push_str("; /proc/sys/vm/drop_caches = 3");
                return CacheState {
                    state: "cold-drop-caches".into(),
                    method,
                };
            }
            Err(e) => method.push_str(&format!("; drop_caches refused ({e}), files evicted only")),
        }
    }
    CacheState {
        state: "cold".into(),
        method,
    }
}

/// Write back and drop one file's cached pages.
pub fn evict_file(path: &Path) -> std::io::Result<()> {
    use std::os::unix::io::AsRawFd;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(path)?;
    file.sync_data()?;
    // SAFETY: valid open descriptor; offset 0 / len 0 means the whole file.
    let rc = unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
    if rc != 0 {
        return Err(std::io::Error::from_raw_os_error(rc));
    }
    Ok(())
}

//! Real small file systems for tests that need a full disk or read-only media: a tmpfs mounted
//! at a directory, unmounted when dropped. Mounting needs root ([`is_root`]); tests skip with a
//! printed reason without it (CI runs as root).

use super::arg;
use std::path::{Path, PathBuf};

/// Whether this process runs as root.
pub fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

/// A tmpfs mounted at a directory, unmounted when dropped.
pub struct Tmpfs(pub PathBuf);

/// `mount -t tmpfs -o OPTS tmpfs DIR`, which must succeed.
pub fn mount(dir: &Path, opts: &str) {
    let ok = std::process::Command::new("mount")
        .args(["-t", "tmpfs", "-o", opts, "tmpfs", arg(dir)])
        .status()
        .expect("mount")
        .success();
    assert!(ok, "mount -o {opts} at {}", dir.display());
}

impl Tmpfs {
    /// A tmpfs of `size` (`4m`) at `dir`, created if needed.
    pub fn mount(dir: PathBuf, size: &str) -> Tmpfs {
        std::fs::create_dir_all(&dir).unwrap();
        mount(&dir, &format!("size={size}"));
        Tmpfs(dir)
    }

    /// Make it read-only (a remount).
    pub fn read_only(&self) {
        mount(&self.0, "remount,ro");
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount").arg(&self.0).status();
    }
}

//! Where sysfs is: `/sys`, or the tree `--sysfs-root` / `POCKETBENCH_SYSFS_ROOT` names (tests
//! point it at a fake tree). Every sysfs reader and writer asks here.

use std::path::PathBuf;

/// Environment variable that points all sysfs reads at another root (tests use a fake tree).
pub const SYSFS_ROOT_ENV: &str = "POCKETBENCH_SYSFS_ROOT";

/// Root of the sysfs tree to read (`/sys` unless overridden).
pub fn sysfs_root() -> PathBuf {
    std::env::var_os(SYSFS_ROOT_ENV)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/sys"))
}

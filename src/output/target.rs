//! Where an output goes: the one rule every output path (`-o`, `--raw`, `--flash-trace`,
//! `--csv`, …) passes through, first before any work ([`check`]) and then when it is opened
//! (`platform::atomic_file`, which every writer uses):
//!
//! - `-`, `/dev/stdout`, or any path that is this process's standard output (`/proc/self/fd/1`,
//!   or the file stdout is redirected to): the data streams to standard output, and from then
//!   on everything else the command prints goes to standard error ([`Target::Stdout`]);
//! - a character device, a FIFO or a socket: opened (a socket: connected to) and written in
//!   place, as every Unix tool does, never replaced; so is a path reached through `/proc` or
//!   `/dev/fd` (another descriptor of this process);
//! - a symbolic link: followed, and what it points at is written by these same rules (a regular
//!   file there is replaced atomically; the link stays a link);
//! - a new path or a regular file: written beside it (`NAME.partial`) and renamed into place,
//!   so it appears whole or not at all;
//! - a directory where a file is expected, a block device, or a path whose directory does not
//!   exist: refused as bad input (exit 2).

use crate::error::{Error, Result};
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

/// How an output path is written.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// Nothing there yet, or a regular file, at this path (links followed): written beside it
    /// and renamed into place.
    File(PathBuf),
    /// A character device, a FIFO or a socket (at this path, links followed): written in place.
    Stream(PathBuf),
    /// This process's standard output.
    Stdout,
}

/// The descriptor the data goes to once standard output carries an output (-1 before).
static DATA_FD: AtomicI32 = AtomicI32::new(-1);
/// The flag whose output standard output carries, and the path it was given as (once
/// descriptor 1 is standard error, `/proc/self/fd/1` no longer names the data's way out).
static CLAIMED_BY: Mutex<Option<(String, PathBuf)>> = Mutex::new(None);

fn claimed() -> std::sync::MutexGuard<'static, Option<(String, PathBuf)>> {
    CLAIMED_BY.lock().unwrap_or_else(|e| e.into_inner())
}

/// The device and inode of standard output as it was before any output claimed it.
fn stdout_identity() -> Option<(u64, u64)> {
    let fd = match DATA_FD.load(Ordering::SeqCst) {
        -1 => 1,
        fd => fd,
    };
    // SAFETY: the descriptor is only borrowed for one fstat; ManuallyDrop keeps it open.
    let file = std::mem::ManuallyDrop::new(unsafe {
        <std::fs::File as std::os::unix::io::FromRawFd>::from_raw_fd(fd)
    });
    // std's metadata widens the platform's stat fields (32-bit on armv7) to u64.
    use std::os::unix::fs::MetadataExt;
    file.metadata().ok().map(|m| (m.dev(), m.ino()))
}

/// Whether `path` names a link inside the process's own descriptor table.
fn is_descriptor_link(path: &Path) -> bool {
    path.starts_with("/proc") || path.starts_with("/dev/fd")
}

/// Follow the symbolic links of `path`'s last component to what they finally name (which may
/// not exist yet); `None` when the chain passes through `/proc` or `/dev/fd`.
fn follow_links(path: &Path) -> std::result::Result<Option<PathBuf>, &'static str> {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        if is_descriptor_link(&p) {
            return Ok(None);
        }
        match std::fs::symlink_metadata(&p) {
            Ok(m) if m.file_type().is_symlink() => {
                let to = std::fs::read_link(&p).map_err(|_| "is a link that cannot be read")?;
                p = crate::limits::dir_of(&p).join(to);
            }
            _ => return Ok(Some(p)),
        }
    }
    Err("is a chain of more than 40 links")
}

/// What `path` is now, following links: a missing path is a new file.
/// Errors name what it is when it cannot be written as an output file.
pub fn kind(path: &Path) -> std::result::Result<Target, &'static str> {
    if path.as_os_str() == "-" || path == Path::new("/dev/stdout") {
        return Ok(Target::Stdout);
    }
    if claimed().as_ref().is_some_and(|(_, p)| p == path) {
        return Ok(Target::Stdout);
    }
    if let (Ok(m), Some(out)) = (std::fs::metadata(path), stdout_identity()) {
        if (m.dev(), m.ino()) == out {
            return Ok(Target::Stdout);
        }
    }
    let Some(at) = follow_links(path)? else {
        return match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => Err("is a directory, not a file"),
            Ok(_) => Ok(Target::Stream(path.to_path_buf())),
            Err(_) => Err("is a descriptor that is not open"),
        };
    };
    let meta = match std::fs::metadata(&at) {
        Ok(m) => m,
        Err(_) => return Ok(Target::File(at)),
    };
    let t = meta.file_type();
    if t.is_file() {
        Ok(Target::File(at))
    } else if t.is_char_device() || t.is_fifo() || t.is_socket() {
        Ok(Target::Stream(at))
    } else if t.is_dir() {
        Err("is a directory, not a file")
    } else if t.is_block_device() {
        Err("is a block device; pocketbench does not write over devices")
    } else {
        Err("is not a regular file")
    }
}

/// Check the output file `path` given with `flag` before any work: refuse (exit 2) a directory,
/// a block device or a missing directory, or a second output to standard output; say how it
/// will be written. An output to standard output takes it now: everything the command prints
/// from here on goes to standard error.
pub fn check(path: &Path, flag: &str) -> Result<Target> {
    let target =
        kind(path).map_err(|what| Error::input(format!("{flag} {}: {what}", path.display())))?;
    match &target {
        Target::File(at) => {
            let parent = crate::limits::dir_of(at);
            if !parent.is_dir() {
                return Err(Error::input(format!(
                    "{flag} {}: directory {} does not exist",
                    path.display(),
                    parent.display()
                )));
            }
        }
        Target::Stdout => {
            let mut by = claimed();
            match by.as_ref() {
                Some((other, _)) if other != flag => {
                    return Err(Error::input(format!(
                        "{flag} {}: standard output already carries {other}",
                        path.display()
                    )))
                }
                _ => *by = Some((flag.to_string(), path.to_path_buf())),
            }
            drop(by);
            stdout_data().map_err(|e| {
                Error::input(format!("{flag} {}: standard output: {e}", path.display()))
            })?;
        }
        Target::Stream(_) => {}
    }
    Ok(target)
}

/// The descriptor an output to standard output is written to. The first call keeps the real
/// standard output for the data and points descriptor 1 at standard error, so every human
/// line (progress, summaries, `--json` outcomes) stays out of the data.
pub fn stdout_data() -> std::io::Result<i32> {
    use std::io::Write;
    let fd = DATA_FD.load(Ordering::SeqCst);
    if fd >= 0 {
        return Ok(fd);
    }
    std::io::stdout().flush()?;
    // SAFETY: plain descriptor calls; the copy is close-on-exec so no child inherits it.
    let data = unsafe { libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3) };
    if data < 0 {
        return Err(std::io::Error::last_os_error());
    }
    if unsafe { libc::dup2(2, 1) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    DATA_FD.store(data, Ordering::SeqCst);
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_path_is_classified() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        assert_eq!(kind(&file), Ok(Target::File(file.clone())));
        std::fs::write(&file, b"x").unwrap();
        assert_eq!(kind(&file), Ok(Target::File(file.clone())));
        // (Not /dev/null: the harness's own stdout may be it.)
        let zero = PathBuf::from("/dev/zero");
        assert_eq!(kind(&zero), Ok(Target::Stream(zero)));
        assert_eq!(kind(dir.path()), Err("is a directory, not a file"));
        let sock = dir.path().join("s");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert_eq!(kind(&sock), Ok(Target::Stream(sock.clone())));
        assert_eq!(kind(Path::new("-")), Ok(Target::Stdout));
        assert_eq!(kind(Path::new("/dev/stdout")), Ok(Target::Stdout));
        let e = check(&dir.path().join("no/such"), "-o").unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
    }

    #[test]
    fn a_link_is_followed_to_what_it_names() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("link");
        let inner = dir.path().join("sub");
        std::fs::create_dir(&inner).unwrap();
        // Relative to the link's own directory, dangling for now: the new file is made there.
        std::os::unix::fs::symlink("sub/real", &link).unwrap();
        assert_eq!(kind(&link), Ok(Target::File(inner.join("real"))));
        let twice = dir.path().join("twice");
        std::os::unix::fs::symlink(&link, &twice).unwrap();
        assert_eq!(kind(&twice), Ok(Target::File(inner.join("real"))));
        let loop_ = dir.path().join("loop");
        std::os::unix::fs::symlink(&loop_, &loop_).unwrap();
        assert_eq!(kind(&loop_), Err("is a chain of more than 40 links"));
    }
}

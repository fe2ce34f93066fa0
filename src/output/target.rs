//! Where an output goes: the one check every output path (`-o`, `--raw`, `--flash-trace`,
//! `--csv`, …) passes through before any work, and the rule for how it is then written.
//!
//! - a new path or a regular file: written beside it (`NAME.partial`) and renamed into place,
//!   so it appears whole or not at all (`platform::atomic_file`);
//! - a character device or a FIFO: written into directly, as every Unix tool does (`-o
//!   /dev/stdout` streams, `-o /dev/null` discards), never replaced;
//! - a directory where a file is expected, a socket, a block device, or a path whose directory
//!   does not exist: refused as bad input (exit 2).

use crate::error::{Error, Result};
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// How an output path is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// Nothing there yet, or a regular file: written beside it and renamed into place.
    File,
    /// A character device or a FIFO: opened and written into.
    Stream,
}

/// What `path` is now, following links: a missing path is a new file.
/// Errors name what it is when it cannot be written as an output file.
pub fn kind(path: &Path) -> std::result::Result<Target, &'static str> {
    let meta = match std::fs::metadata(path) {
        Ok(m) => m,
        Err(_) => return Ok(Target::File),
    };
    let t = meta.file_type();
    if t.is_file() {
        Ok(Target::File)
    } else if t.is_char_device() || t.is_fifo() {
        Ok(Target::Stream)
    } else if t.is_dir() {
        Err("is a directory, not a file")
    } else if t.is_socket() {
        Err("is a socket, not a file")
    } else if t.is_block_device() {
        Err("is a block device; pocketbench does not write over devices")
    } else {
        Err("is not a regular file")
    }
}

/// Check the output file `path` given with `flag` before any work: refuse (exit 2) a directory,
/// a socket, a block device or a missing directory; say how it will be written.
pub fn check(path: &Path, flag: &str) -> Result<Target> {
    let target =
        kind(path).map_err(|what| Error::input(format!("{flag} {}: {what}", path.display())))?;
    if target == Target::File {
        let parent = crate::limits::dir_of(path);
        if !parent.is_dir() {
            return Err(Error::input(format!(
                "{flag} {}: directory {} does not exist",
                path.display(),
                parent.display()
            )));
        }
    }
    Ok(target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_kind_of_path_is_classified() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("f");
        assert_eq!(kind(&file), Ok(Target::File));
        std::fs::write(&file, b"x").unwrap();
        assert_eq!(kind(&file), Ok(Target::File));
        assert_eq!(kind(Path::new("/dev/null")), Ok(Target::Stream));
        assert_eq!(kind(dir.path()), Err("is a directory, not a file"));
        let sock = dir.path().join("s");
        let _l = std::os::unix::net::UnixListener::bind(&sock).unwrap();
        assert_eq!(kind(&sock), Err("is a socket, not a file"));
        let e = check(&dir.path().join("no/such"), "-o").unwrap_err();
        assert!(e.to_string().contains("does not exist"), "{e}");
    }
}

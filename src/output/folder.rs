//! Folders pocketbench fills at a user's request (`run --dir`, `durability --replay-dir`,
//! `trace import --all-dbs`): only a new folder, an empty one, or one pocketbench filled before
//! (it holds [`MARK`]) is used; anything else is refused before any work, so a folder option
//! never deletes or overwrites what the tool did not make.

use crate::error::{Error, Result, ResultExt};
use std::path::Path;

/// The file that says pocketbench filled this folder (and may empty it again).
pub const MARK: &str = ".pocketbench-folder";

/// Check the folder `path` given with `flag` before any work (exit 2 when it cannot be used).
pub fn check(path: &Path, flag: &str) -> Result<()> {
    let refuse = |what: &str| Err(Error::input(format!("{flag} {}: {what}", path.display())));
    match std::fs::symlink_metadata(path) {
        Err(_) => {
            let parent = crate::limits::dir_of(path);
            if parent.is_dir() {
                Ok(())
            } else {
                refuse(&format!("directory {} does not exist", parent.display()))
            }
        }
        Ok(m) if !m.is_dir() => refuse("is not a folder"),
        Ok(_) if path.join(MARK).is_file() => Ok(()),
        Ok(_) => match std::fs::read_dir(path).map(|mut d| d.next().is_none()) {
            Ok(true) => Ok(()),
            Ok(false) => refuse(
                "is a folder with files pocketbench did not put there; give a new or empty folder",
            ),
            Err(e) => refuse(&format!("cannot be read ({e})")),
        },
    }
}

/// Mark `path` (a folder pocketbench has just filled) as pocketbench's.
pub fn mark(path: &Path) -> Result<()> {
    std::fs::write(
        path.join(MARK),
        b"filled by pocketbench; it may replace this folder\n",
    )
    .run_err(format!("marking {}", path.display()))
}

/// Make `path` ready for a command that keeps its work there (`run --dir`): checked as
/// [`check`] does, created when missing, emptied of what an earlier use left when pocketbench
/// filled it before (so a second run starts fresh), and marked. Returns whether it was created.
pub fn fresh(path: &Path, flag: &str) -> Result<bool> {
    check(path, flag)?;
    let created = !path.exists();
    if !created && path.join(MARK).is_file() {
        let entries = std::fs::read_dir(path).input_err(format!("{flag} {}", path.display()))?;
        for entry in entries.flatten() {
            if entry.file_name() == MARK {
                continue;
            }
            let p = entry.path();
            let gone = match entry.file_type() {
                Ok(t) if t.is_dir() => std::fs::remove_dir_all(&p),
                _ => std::fs::remove_file(&p),
            };
            gone.run_err(format!(
                "{flag}: removing the earlier run's {}",
                p.display()
            ))?;
        }
    }
    std::fs::create_dir_all(path).input_err(format!("{flag} {}", path.display()))?;
    mark(path)?;
    Ok(created)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_new_empty_or_marked_folders_are_used() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert!(check(&d.join("new"), "--x").is_ok());
        assert!(check(&d.join("no/such"), "--x").is_err());
        std::fs::create_dir(d.join("empty")).unwrap();
        assert!(check(&d.join("empty"), "--x").is_ok());
        std::fs::write(d.join("empty/mine"), b"x").unwrap();
        let e = check(&d.join("empty"), "--x").unwrap_err().to_string();
        assert!(e.contains("did not put there"), "{e}");
        mark(&d.join("empty")).unwrap();
        assert!(check(&d.join("empty"), "--x").is_ok());
        let e = check(&d.join("empty/mine"), "--x").unwrap_err().to_string();
        assert!(e.contains("is not a folder"), "{e}");
    }

    #[test]
    fn a_folder_used_again_starts_fresh_and_a_foreign_one_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("run");
        assert!(fresh(&d, "--dir").unwrap());
        std::fs::create_dir(d.join("db")).unwrap();
        std::fs::write(d.join("db/x.sqlite"), b"old").unwrap();
        std::fs::write(d.join("workload.pbt"), b"old").unwrap();
        assert!(!fresh(&d, "--dir").unwrap());
        let left: Vec<_> = std::fs::read_dir(&d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left, vec![std::ffi::OsString::from(MARK)]);
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::fs::write(theirs.join("notes.txt"), b"mine").unwrap();
        assert!(fresh(&theirs, "--dir").is_err());
        assert_eq!(std::fs::read(theirs.join("notes.txt")).unwrap(), b"mine");
        assert!(!theirs.join(MARK).exists());
    }
}

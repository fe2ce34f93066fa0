//! Folders pocketbench fills at a user's request (`durability --replay-dir`,
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
}

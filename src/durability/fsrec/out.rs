//! Writing a crash state as a directory. The state checked before it is usually in the same
//! directory, its files megabytes that mostly hold the same names: a file kept by the new
//! state is written over in place (its page cache reused, its blocks not freed and allocated
//! again) and cut to its new length; everything else the directory holds — names the new
//! state lacks, what the engine's recovery created, anything that is not a plain file with
//! one name (a hard link would carry a write to its other name) — is removed first. What
//! is left is exactly the state, as a directory written from nothing would be; if the
//! directory cannot be reused (an entry cannot be removed or opened), it is written again
//! from nothing.

use super::{parent, Inode};
use std::collections::{BTreeMap, BTreeSet};
use std::fs::{File, OpenOptions};
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;

/// Make `dir` hold the directories `dirs` (with their ancestors) and the files `files` (by
/// relative name), each opened for writing and given to `fill` with its inode to write its
/// whole content.
pub fn write_dir<'a>(
    dir: &Path,
    dirs: &BTreeSet<String>,
    files: impl Iterator<Item = (&'a str, Inode)>,
    mut fill: impl FnMut(Inode, &File) -> io::Result<()>,
) -> io::Result<()> {
    let files: BTreeMap<&str, Inode> = files.collect();
    let mut wanted: BTreeSet<&str> = BTreeSet::new();
    for d in dirs {
        let mut p = d.as_str();
        while !p.is_empty() && wanted.insert(p) {
            p = parent(p);
        }
    }
    let mut write = |fresh: bool| -> io::Result<()> {
        if fresh {
            let _ = std::fs::remove_dir_all(dir);
        }
        std::fs::create_dir_all(dir)?;
        clear(dir, "", &wanted, &files)?;
        for d in dirs {
            std::fs::create_dir_all(dir.join(d))?;
        }
        for (name, &inode) in &files {
            let file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(false)
                .open(dir.join(name))?;
            fill(inode, &file)?;
        }
        Ok(())
    };
    write(false).or_else(|_| write(true))
}

/// Write `bytes` as the whole content of `file`.
pub fn write_whole(file: &File, bytes: &[u8]) -> io::Result<()> {
    file.write_all_at(bytes, 0)?;
    file.set_len(bytes.len() as u64)
}

/// Remove from `root`/`rel` every entry that is not a wanted directory or a plain file with
/// one name among `files`.
fn clear(
    root: &Path,
    rel: &str,
    wanted: &BTreeSet<&str>,
    files: &BTreeMap<&str, Inode>,
) -> io::Result<()> {
    for entry in std::fs::read_dir(root.join(rel))? {
        let entry = entry?;
        let name = entry.file_name();
        let name = match (name.to_str(), rel) {
            (Some(n), "") => n.to_string(),
            (Some(n), _) => format!("{rel}/{n}"),
            (None, _) => String::new(),
        };
        // Not followed: a symbolic link is an entry like any other.
        let meta = entry.metadata()?;
        if meta.is_dir() && wanted.contains(name.as_str()) {
            clear(root, &name, wanted, files)?;
        } else if meta.is_dir() {
            std::fs::remove_dir_all(entry.path())?;
        } else if !(meta.is_file() && meta.nlink() == 1 && files.contains_key(name.as_str())) {
            std::fs::remove_file(entry.path())?;
        }
    }
    Ok(())
}

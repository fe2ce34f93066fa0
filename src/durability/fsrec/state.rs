//! A crash state built from a recording: the files and directories the disk holds after the
//! power failed, given the fate of every call ([`super::model`]), kept in memory and written
//! out as a directory for the engine to open. [`Builder`] keeps the image of the durable
//! prefix between crash points taken in increasing order, so each state replays only the
//! calls after the first one not yet durable.

use super::model::{fates, Choice, Fate, Model, Space, SECTOR};
use super::{Inode, Op, Recording};
use crate::error::{Result, ResultExt};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// The disk's content: every inode's bytes, the names, the directories.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Image {
    pub files: Vec<Vec<u8>>,
    pub names: BTreeMap<String, Inode>,
    pub dirs: BTreeSet<String>,
}

impl Image {
    /// The files present before the recording.
    pub fn initial(rec: &Recording) -> Image {
        let mut files: Vec<Vec<u8>> = vec![Vec::new(); rec.inodes];
        for (i, (_, content)) in rec.initial.iter().enumerate() {
            files[i] = content.clone();
        }
        Image {
            files,
            names: rec
                .initial
                .iter()
                .enumerate()
                .map(|(i, (p, _))| (p.clone(), i))
                .collect(),
            dirs: rec.initial_dirs.iter().cloned().collect(),
        }
    }

    /// The content at `path`, if it has a name.
    pub fn file(&self, path: &str) -> Option<&[u8]> {
        self.names.get(path).map(|&i| self.files[i].as_slice())
    }

    /// Apply op `i` of `rec` with its fate.
    pub fn apply(&mut self, rec: &Recording, i: usize, fate: &Fate) {
        if *fate == Fate::Lost {
            return;
        }
        match &rec.ops[i] {
            Op::Write { inode, .. } | Op::Trunc { inode, .. } => {
                let file = &mut self.files[*inode];
                let done: std::result::Result<(), std::convert::Infallible> =
                    data_edit(rec, i, fate, |edit| {
                        edit_bytes(file, edit);
                        Ok(())
                    });
                let Ok(()) = done;
            }
            _ => self.apply_names(rec, i, fate),
        }
    }

    /// Apply op `i` of `rec` with its fate to the names and directories only (its data, if
    /// it writes or truncates, is left to the caller).
    fn apply_names(&mut self, rec: &Recording, i: usize, fate: &Fate) {
        if *fate == Fate::Lost {
            return;
        }
        match &rec.ops[i] {
            Op::Create { path, inode } => {
                self.names.insert(path.clone(), *inode);
            }
            Op::Write { .. } | Op::Trunc { .. } => {}
            Op::Rename { from, to, .. } => {
                if let Some(i) = self.names.remove(from) {
                    self.names.insert(to.clone(), i);
                } else if self.dirs.remove(from) {
                    self.dirs.insert(to.clone());
                    let prefix = format!("{from}/");
                    let moved: Vec<(String, Inode)> = self
                        .names
                        .range(prefix.clone()..)
                        .take_while(|(p, _)| p.starts_with(&prefix))
                        .map(|(p, &i)| (p.clone(), i))
                        .collect();
                    for (p, i) in moved {
                        self.names.remove(&p);
                        self.names.insert(format!("{to}/{}", &p[prefix.len()..]), i);
                    }
                }
            }
            Op::Unlink { path } => {
                self.names.remove(path);
            }
            Op::Link { from, to, .. } => {
                if let Some(&i) = self.names.get(from) {
                    self.names.insert(to.clone(), i);
                }
            }
            Op::Mkdir { path } => {
                self.dirs.insert(path.clone());
            }
            Op::Rmdir { path } => {
                self.dirs.remove(path);
            }
            Op::Sync { .. } | Op::DirSync { .. } | Op::Ack(_) => {}
        }
    }

    /// Write the image as directory `dir` (emptied first). A name whose directory is gone
    /// is left out, as the file system would not reach it.
    pub fn write_out(&self, dir: &Path) -> Result<()> {
        let _ = std::fs::remove_dir_all(dir);
        super::out::write_dir(dir, &self.dirs, self.reachable(), |i, file| {
            super::out::write_whole(file, &self.files[i])
        })
        .run_err(format!("writing the crash state in {}", dir.display()))
    }

    /// The names the file system reaches (their directory exists) and their inodes.
    fn reachable(&self) -> impl Iterator<Item = (&str, Inode)> + '_ {
        self.names
            .iter()
            .filter(|(name, _)| {
                let parent = super::parent(name);
                parent.is_empty() || self.dirs.contains(parent)
            })
            .map(|(name, &i)| (name.as_str(), i))
    }
}

/// Crash states of one recording under one model.
pub struct Builder {
    pub rec: Recording,
    pub model: Model,
    pub durable: Vec<usize>,
    /// The image after ops `..done`, all of them kept.
    prefix: Image,
    done: usize,
}

impl Builder {
    pub fn new(rec: Recording, model: Model) -> Self {
        Builder {
            model,
            durable: super::model::durable_at(&rec, model),
            prefix: Image::initial(&rec),
            done: 0,
            rec,
        }
    }

    /// The optional calls when the power fails before op `point` (0-based).
    pub fn space(&self, point: usize) -> Space {
        Space::at(&self.rec, &self.durable, self.model, point)
    }

    /// Bring the durable prefix's image to op `first_open`.
    fn advance(&mut self, first_open: usize) {
        if self.done > first_open {
            self.prefix = Image::initial(&self.rec);
            self.done = 0;
        }
        for i in self.done..first_open {
            self.prefix.apply(&self.rec, i, &Fate::Kept);
        }
        self.done = first_open;
    }

    /// The image for `choice` at `space`, and each call's fate from `space.first_open`.
    pub fn state(&mut self, space: &Space, choice: &Choice) -> (Image, Vec<Fate>) {
        self.advance(space.first_open);
        let mut image = self.prefix.clone();
        let fates = fates(&self.rec, &self.durable, self.model, space, choice);
        for (k, fate) in fates.iter().enumerate() {
            image.apply(&self.rec, space.first_open + k, fate);
        }
        (image, fates)
    }

    /// The state for `choice` at `space` written as directory `dir`, as [`Builder::state`]
    /// and [`Image::write_out`] would write it, and each call's fate; without copying the
    /// durable prefix's files in memory (a state's files are megabytes, its calls after the
    /// prefix a few): each file is written from the prefix, then the calls after it that
    /// write or truncate it are applied to the file on disk, in order. The files of the
    /// previous state in `dir` are written over rather than deleted ([`super::out`]).
    pub fn write_state(&mut self, space: &Space, choice: &Choice, dir: &Path) -> Result<Vec<Fate>> {
        self.advance(space.first_open);
        let fates = fates(&self.rec, &self.durable, self.model, space, choice);
        let mut top = Image {
            files: Vec::new(),
            names: self.prefix.names.clone(),
            dirs: self.prefix.dirs.clone(),
        };
        let mut edits: BTreeMap<Inode, Vec<usize>> = BTreeMap::new();
        for (k, fate) in fates.iter().enumerate() {
            let i = space.first_open + k;
            match &self.rec.ops[i] {
                Op::Write { inode, .. } | Op::Trunc { inode, .. } => {
                    if *fate != Fate::Lost {
                        edits.entry(*inode).or_default().push(k);
                    }
                }
                _ => top.apply_names(&self.rec, i, fate),
            }
        }
        let (rec, prefix) = (&self.rec, &self.prefix);
        super::out::write_dir(dir, &top.dirs, top.reachable(), |inode, file| {
            use std::os::unix::fs::FileExt;
            let list = edits.get(&inode).map_or(&[][..], Vec::as_slice);
            if list.len() > FEW_EDITS {
                // Many calls (a WAL rewritten since the prefix): applied in memory, written once.
                let mut bytes = prefix.files[inode].clone();
                for &k in list {
                    let done: std::result::Result<(), std::convert::Infallible> =
                        data_edit(rec, space.first_open + k, &fates[k], |edit| {
                            edit_bytes(&mut bytes, edit);
                            Ok(())
                        });
                    let Ok(()) = done;
                }
                return super::out::write_whole(file, &bytes);
            }
            super::out::write_whole(file, &prefix.files[inode])?;
            for &k in list {
                let i = space.first_open + k;
                data_edit(rec, i, &fates[k], |edit| match edit {
                    Edit::Put(at, bytes) => file.write_all_at(bytes, at),
                    Edit::Truncate(len) => file.set_len(len),
                })?;
            }
            Ok(())
        })
        .run_err(format!("writing the crash state in {}", dir.display()))?;
        Ok(fates)
    }
}

/// Up to this many writes and truncates of a file after the prefix are applied to the file
/// on disk, one call each; more are applied to a copy in memory, written once.
const FEW_EDITS: usize = 16;

/// Apply `edit` to a file's bytes in memory.
fn edit_bytes(file: &mut Vec<u8>, edit: Edit) {
    match edit {
        Edit::Put(at, bytes) => {
            let end = at as usize + bytes.len();
            if file.len() < end {
                file.resize(end, 0);
            }
            file[at as usize..end].copy_from_slice(bytes);
        }
        Edit::Truncate(len) => file.resize(len as usize, 0),
    }
}

/// What a write or a truncate does to its file's bytes.
enum Edit<'a> {
    /// These bytes at this offset (the file grows with zeros to reach it).
    Put(u64, &'a [u8]),
    /// The file cut or grown (with zeros) to this length.
    Truncate(u64),
}

/// The data op `i` of `rec` (a write or a truncate, not lost) as edits given to `edit`: a
/// torn write puts its kept sectors only.
fn data_edit<'r, E>(
    rec: &'r Recording,
    i: usize,
    fate: &Fate,
    mut edit: impl FnMut(Edit<'r>) -> std::result::Result<(), E>,
) -> std::result::Result<(), E> {
    match &rec.ops[i] {
        Op::Write { off, data, .. } => {
            let bytes = &rec.data[data.clone()];
            let end = off + bytes.len() as u64;
            let mut piece = |from: u64, to: u64| {
                edit(Edit::Put(
                    from,
                    &bytes[(from - off) as usize..(to - off) as usize],
                ))
            };
            match fate {
                Fate::Torn(kept) => {
                    let first = off / SECTOR;
                    for (k, _) in kept.iter().enumerate().filter(|(_, &keep)| keep) {
                        let s = (first + k as u64) * SECTOR;
                        piece(s.max(*off), (s + SECTOR).min(end))?;
                    }
                    Ok(())
                }
                _ => piece(*off, end),
            }
        }
        Op::Trunc { len, .. } => edit(Edit::Truncate(*len)),
        _ => Ok(()),
    }
}

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
            Op::Create { path, inode } => {
                self.names.insert(path.clone(), *inode);
            }
            Op::Write { inode, off, data } => {
                let bytes = &rec.data[data.clone()];
                let file = &mut self.files[*inode];
                let mut put = |from: u64, to: u64| {
                    let (a, b) = ((from - off) as usize, (to - off) as usize);
                    let end = to as usize;
                    if file.len() < end {
                        file.resize(end, 0);
                    }
                    file[from as usize..end].copy_from_slice(&bytes[a..b]);
                };
                let end = off + bytes.len() as u64;
                match fate {
                    Fate::Torn(kept) => {
                        let first = off / SECTOR;
                        for (k, _) in kept.iter().enumerate().filter(|(_, &keep)| keep) {
                            let s = (first + k as u64) * SECTOR;
                            put(s.max(*off), (s + SECTOR).min(end));
                        }
                    }
                    _ => put(*off, end),
                }
            }
            Op::Trunc { inode, len } => self.files[*inode].resize(*len as usize, 0),
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
        std::fs::create_dir_all(dir).run_err(format!("creating {}", dir.display()))?;
        for d in &self.dirs {
            let p = dir.join(d);
            std::fs::create_dir_all(&p).run_err(format!("creating {}", p.display()))?;
        }
        for (name, &i) in &self.names {
            let parent = super::parent(name);
            if !parent.is_empty() && !self.dirs.contains(parent) {
                continue;
            }
            let p = dir.join(name);
            std::fs::write(&p, &self.files[i]).run_err(format!("writing {}", p.display()))?;
        }
        Ok(())
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

    /// The image for `choice` at `space`, and each call's fate from `space.first_open`.
    pub fn state(&mut self, space: &Space, choice: &Choice) -> (Image, Vec<Fate>) {
        if self.done > space.first_open {
            self.prefix = Image::initial(&self.rec);
            self.done = 0;
        }
        for i in self.done..space.first_open {
            self.prefix.apply(&self.rec, i, &Fate::Kept);
        }
        self.done = space.first_open;
        let mut image = self.prefix.clone();
        let fates = fates(&self.rec, &self.durable, self.model, space, choice);
        for (k, fate) in fates.iter().enumerate() {
            image.apply(&self.rec, space.first_open + k, fate);
        }
        (image, fates)
    }
}

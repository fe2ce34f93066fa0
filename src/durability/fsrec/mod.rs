//! A recording of the file-system calls a workload made under one directory, and the
//! crash states a power failure can leave from it ([`model`]). The recording is made once by
//! the LD_PRELOAD recorder (`src/durability/recorder.c`, which writes the binary log read by
//! [`Recording::parse`]) or built by hand ([`Recording::create`] and its siblings, for tests).
//!
//! The log: the magic `PBFSREC1`, then records, each a kind byte and its fields (integers
//! little-endian; a path is a `u16` length and the bytes, relative to the recorded directory):
//!
//! | kind | record | fields |
//! |---|---|---|
//! | 1 | open of an existing file | `u64` inode number, path |
//! | 2 | creation of a file | `u64` inode number, path |
//! | 3 | write | `u64` inode number, `u64` offset, `u32` length, the bytes |
//! | 4 | truncate | `u64` inode number, `u64` length |
//! | 5 | fsync / fdatasync of a file | `u64` inode number |
//! | 6 | fsync of a directory | path |
//! | 7 | rename | old path, new path |
//! | 8 | unlink | path |
//! | 9 | link | old path, new path |
//! | 10 | mkdir | path |
//! | 11 | rmdir | path |
//! | 12 | acknowledgement | `u64` commits acknowledged so far |
//!
//! Kernel inode numbers become logical inodes here: a creation makes a new one (so a reused
//! number is a new file), an open names the file at that path.

pub mod model;
pub mod out;
pub mod state;

use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::ops::Range;

/// Upper bound of a recording's size (docs/limits.md): 4 GiB.
pub const MAX_LOG: u64 = 4 << 30;

/// Upper bound of a file's size in a recording (docs/limits.md): the end of every write and
/// every truncate, 4 GiB.
pub const MAX_FILE: u64 = 4 << 30;

/// A logical file: an index into [`Recording::initial`] and the files created later.
pub type Inode = usize;

/// One recorded call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// A new file's directory entry.
    Create {
        path: String,
        inode: Inode,
    },
    /// Bytes written at `off`; the bytes are `Recording::data[data]`.
    Write {
        inode: Inode,
        off: u64,
        data: Range<usize>,
    },
    Trunc {
        inode: Inode,
        len: u64,
    },
    /// fsync or fdatasync of a file; `dir` is the directory its name is in.
    Sync {
        inode: Inode,
        dir: String,
    },
    /// fsync of a directory.
    DirSync {
        dir: String,
    },
    /// `inode` is what was renamed; `replaced` whether `to` named a file before.
    Rename {
        from: String,
        to: String,
        inode: Option<Inode>,
        replaced: bool,
    },
    Unlink {
        path: String,
    },
    Link {
        from: String,
        to: String,
        inode: Option<Inode>,
    },
    Mkdir {
        path: String,
    },
    Rmdir {
        path: String,
    },
    /// The workload acknowledged commit `n` (1, 2, …) here; 0: the workload started.
    Ack(u64),
}

impl Op {
    /// A change to the namespace (kept or lost as directory operations are).
    pub fn is_namespace(&self) -> bool {
        matches!(
            self,
            Op::Create { .. }
                | Op::Rename { .. }
                | Op::Unlink { .. }
                | Op::Link { .. }
                | Op::Mkdir { .. }
                | Op::Rmdir { .. }
        )
    }

    /// The directories whose entries it changes.
    pub fn dirs(&self) -> Vec<&str> {
        match self {
            Op::Create { path, .. }
            | Op::Unlink { path }
            | Op::Mkdir { path }
            | Op::Rmdir { path } => vec![parent(path)],
            Op::Rename { from, to, .. } | Op::Link { from, to, .. } => {
                vec![parent(from), parent(to)]
            }
            _ => vec![],
        }
    }
}

/// The directory a relative path is in ("" for the recorded directory itself).
pub fn parent(path: &str) -> &str {
    path.rfind('/').map_or("", |i| &path[..i])
}

/// The calls and the files the recorded directory held before them.
#[derive(Clone, Debug, Default)]
pub struct Recording {
    /// Files present at the start: path and content (inodes `0..initial.len()`).
    pub initial: Vec<(String, Vec<u8>)>,
    /// Directories present at the start.
    pub initial_dirs: Vec<String>,
    pub ops: Vec<Op>,
    /// The bytes of every write.
    pub data: Vec<u8>,
    /// Inodes in all (initial and created).
    pub inodes: usize,
    /// The namespace as the calls left it (every call kept): path → inode.
    names: BTreeMap<String, Inode>,
}

impl Recording {
    /// A recording starting from these files and directories.
    pub fn new(initial: Vec<(String, Vec<u8>)>, initial_dirs: Vec<String>) -> Self {
        let names = initial
            .iter()
            .enumerate()
            .map(|(i, (p, _))| (p.clone(), i))
            .collect();
        Recording {
            inodes: initial.len(),
            initial,
            initial_dirs,
            names,
            ..Recording::default()
        }
    }

    /// The inode at `path` when every call so far is kept.
    pub fn inode_at(&self, path: &str) -> Option<Inode> {
        self.names.get(path).copied()
    }

    pub fn create(&mut self, path: &str) -> Inode {
        let inode = self.inodes;
        self.inodes += 1;
        self.names.insert(path.into(), inode);
        self.ops.push(Op::Create {
            path: path.into(),
            inode,
        });
        inode
    }

    pub fn write(&mut self, inode: Inode, off: u64, bytes: &[u8]) {
        let start = self.data.len();
        self.data.extend_from_slice(bytes);
        self.ops.push(Op::Write {
            inode,
            off,
            data: start..self.data.len(),
        });
    }

    pub fn truncate(&mut self, inode: Inode, len: u64) {
        self.ops.push(Op::Trunc { inode, len });
    }

    pub fn sync(&mut self, inode: Inode) {
        let dir = self
            .names
            .iter()
            .find(|(_, &i)| i == inode)
            .map_or(String::new(), |(p, _)| parent(p).to_string());
        self.ops.push(Op::Sync { inode, dir });
    }

    pub fn dir_sync(&mut self, dir: &str) {
        self.ops.push(Op::DirSync { dir: dir.into() });
    }

    pub fn rename(&mut self, from: &str, to: &str) {
        let inode = self.names.remove(from);
        let replaced = self.names.contains_key(to);
        if let Some(i) = inode {
            self.names.insert(to.into(), i);
        }
        self.ops.push(Op::Rename {
            from: from.into(),
            to: to.into(),
            inode,
            replaced,
        });
    }

    pub fn unlink(&mut self, path: &str) {
        self.names.remove(path);
        self.ops.push(Op::Unlink { path: path.into() });
    }

    pub fn link(&mut self, from: &str, to: &str) {
        let inode = self.names.get(from).copied();
        if let Some(i) = inode {
            self.names.insert(to.into(), i);
        }
        self.ops.push(Op::Link {
            from: from.into(),
            to: to.into(),
            inode,
        });
    }

    pub fn ack(&mut self, n: u64) {
        self.ops.push(Op::Ack(n));
    }

    /// Commits acknowledged before op index `before` (0-based, exclusive).
    pub fn acknowledged(&self, before: usize) -> u64 {
        self.ops[..before.min(self.ops.len())]
            .iter()
            .rev()
            .find_map(|o| match o {
                Op::Ack(n) => Some(*n),
                _ => None,
            })
            .unwrap_or(0)
    }

    /// The event (1-based) of the first call after the workload started (acknowledgement 0,
    /// logged once the engine is open), or 1: crash points before it test only the engine's
    /// opening.
    pub fn workload_start(&self) -> u64 {
        self.ops
            .iter()
            .position(|o| *o == Op::Ack(0))
            .map_or(1, |i| i as u64 + 2)
    }

    /// Read the recorder's log `bytes` on top of the starting files. `what` names the log in
    /// errors.
    pub fn parse(mut self, bytes: &[u8], what: &str) -> Result<Self> {
        let bad = |at: usize, why: &str| {
            Error::failed(format!("{what}: recording damaged at byte {at}: {why}"))
        };
        if bytes.get(..8) != Some(b"PBFSREC1".as_slice()) {
            return Err(bad(0, "not a pocketbench file-system recording"));
        }
        let mut r = Reader { bytes, at: 8 };
        let mut kernel: BTreeMap<u64, Inode> = BTreeMap::new();
        while r.at < bytes.len() {
            let start = r.at;
            let kind = r.u8().ok_or_else(|| bad(start, "truncated"))?;
            let parsed = (|| -> Option<()> {
                match kind {
                    1 | 2 => {
                        let ino = r.u64()?;
                        let path = r.path()?;
                        let inode = match (kind, self.names.get(&path)) {
                            (1, Some(&i)) => i,
                            _ => self.create(&path),
                        };
                        kernel.insert(ino, inode);
                    }
                    3 => {
                        let ino = r.u64()?;
                        let off = r.u64()?;
                        let len = r.u32()? as usize;
                        let data = r.take(len)?;
                        if off.checked_add(len as u64)? > MAX_FILE {
                            return None;
                        }
                        if let Some(&i) = kernel.get(&ino) {
                            self.write(i, off, data);
                        }
                    }
                    4 => {
                        let (ino, len) = (r.u64()?, r.u64()?);
                        if len > MAX_FILE {
                            return None;
                        }
                        if let Some(&i) = kernel.get(&ino) {
                            self.truncate(i, len);
                        }
                    }
                    5 => {
                        if let Some(&i) = kernel.get(&r.u64()?) {
                            self.sync(i);
                        }
                    }
                    6 => {
                        let dir = r.path()?;
                        self.dir_sync(&dir);
                    }
                    7 | 9 => {
                        let (from, to) = (r.path()?, r.path()?);
                        if kind == 7 {
                            self.rename(&from, &to);
                        } else {
                            self.link(&from, &to);
                        }
                    }
                    8 => {
                        let path = r.path()?;
                        self.unlink(&path);
                    }
                    10 => self.ops.push(Op::Mkdir { path: r.path()? }),
                    11 => self.ops.push(Op::Rmdir { path: r.path()? }),
                    12 => {
                        let n = r.u64()?;
                        self.ack(n);
                    }
                    _ => return None,
                }
                Some(())
            })();
            if parsed.is_none() {
                return Err(bad(start, &format!("record of kind {kind} unreadable")));
            }
        }
        Ok(self)
    }

    /// One line for op `i` (0-based), as `--replay-crash` prints it.
    pub fn describe(&self, i: usize) -> String {
        let name = |inode: Inode| {
            self.initial
                .get(inode)
                .map(|(p, _)| p.clone())
                .or_else(|| {
                    self.ops.iter().find_map(|o| match o {
                        Op::Create { path, inode: n } if *n == inode => Some(path.clone()),
                        _ => None,
                    })
                })
                .unwrap_or_else(|| format!("inode {inode}"))
        };
        match &self.ops[i] {
            Op::Create { path, .. } => format!("create {path}"),
            Op::Write { inode, off, data } => {
                format!("write {} bytes at {off} of {}", data.len(), name(*inode))
            }
            Op::Trunc { inode, len } => format!("truncate {} to {len}", name(*inode)),
            Op::Sync { inode, .. } => format!("fsync {}", name(*inode)),
            Op::DirSync { dir } => format!("fsync directory /{dir}"),
            Op::Rename { from, to, .. } => format!("rename {from} -> {to}"),
            Op::Unlink { path } => format!("unlink {path}"),
            Op::Link { from, to, .. } => format!("link {from} -> {to}"),
            Op::Mkdir { path } => format!("mkdir {path}"),
            Op::Rmdir { path } => format!("rmdir {path}"),
            Op::Ack(n) => format!("commit {n} acknowledged"),
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    fn path(&mut self) -> Option<String> {
        let n = u16::from_le_bytes(self.take(2)?.try_into().ok()?) as usize;
        String::from_utf8(self.take(n)?.to_vec()).ok()
    }
}

#[cfg(test)]
mod tests;

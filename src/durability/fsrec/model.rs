//! The persistence models: which recorded calls a power failure must keep, which it may keep
//! or lose (and tear), under the rules of a file system (docs/durability.md has them as
//! tables, with their sources).
//!
//! A call is **durable** at a crash point once a later call before the point guaranteed it
//! ([`durable_at`]): a file's data by an fsync of that file; directory operations by what each
//! model says. The others are **optional**: [`Space`] lists them, and a [`Choice`] picks
//! which survive — a prefix of the optional directory operations (in `ext4-ordered` and the
//! F2FS models, where they reach the disk in order, through the journal or at a checkpoint)
//! and, for each optional write, kept, lost or torn at 512-byte sectors. Under `strict`
//! nothing optional survives: one state per crash point.

use super::{Op, Recording};
use crate::workload::rng::Rng;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The sector a torn write is cut at.
pub const SECTOR: u64 = 512;

/// A file system's persistence rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Model {
    /// Only synced data and directory entries synced by an fsync of their directory survive.
    Strict,
    /// ext4 with data=ordered: any fsync commits the journal (every earlier directory
    /// operation and truncate); unsynced data may be kept, lost or torn; a rename over an
    /// existing file brings the renamed file's data with it (auto_da_alloc).
    Ext4Ordered,
    /// F2FS, fsync_mode=posix (Android's default): an fsync keeps the file's data and a new
    /// file's own entry (roll-forward recovery); other directory operations wait for a
    /// checkpoint (a directory fsync, or an fsync of a renamed or hard-linked file).
    F2fsPosix,
    /// F2FS, fsync_mode=strict: as posix, and an fsync of a file whose directory has
    /// un-checkpointed operations makes a checkpoint (as ext4, xfs and btrfs behave).
    F2fsStrict,
}

impl Model {
    pub fn name(self) -> &'static str {
        match self {
            Model::Strict => "strict",
            Model::Ext4Ordered => "ext4-ordered",
            Model::F2fsPosix => "f2fs-posix",
            Model::F2fsStrict => "f2fs-strict",
        }
    }

    /// Calls that reach the disk in order with the directory operations (the journal).
    fn ordered(self, op: &Op) -> bool {
        op.is_namespace() || (self == Model::Ext4Ordered && matches!(op, Op::Trunc { .. }))
    }
}

/// For every op, the index of the op that made it durable (`usize::MAX`: none did). Syncs
/// and acknowledgements are durable at once (they change nothing on disk).
pub fn durable_at(rec: &Recording, m: Model) -> Vec<usize> {
    let mut at = vec![usize::MAX; rec.ops.len()];
    let mut data: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut ordered: Vec<usize> = Vec::new();
    // F2FS: inodes renamed or hard-linked since the last checkpoint (their fsync checkpoints).
    let mut lost_parent: BTreeSet<usize> = BTreeSet::new();
    let checkpoint = |ordered: &mut Vec<usize>, at: &mut Vec<usize>, j: usize| {
        for i in ordered.drain(..) {
            at[i] = j;
        }
    };
    for (j, op) in rec.ops.iter().enumerate() {
        match op {
            _ if m.ordered(op) => {
                ordered.push(j);
                match op {
                    Op::Rename { inode: Some(i), .. } => {
                        lost_parent.insert(*i);
                    }
                    Op::Link { inode: Some(i), .. } => {
                        lost_parent.insert(*i);
                    }
                    _ => {}
                }
            }
            Op::Write { inode, .. } | Op::Trunc { inode, .. } => {
                data.entry(*inode).or_default().push(j)
            }
            Op::Sync { inode, dir } => {
                at[j] = j;
                for i in data.remove(inode).unwrap_or_default() {
                    at[i] = j;
                }
                let pending_here = ordered
                    .iter()
                    .any(|&i| rec.ops[i].dirs().contains(&dir.as_str()));
                match m {
                    Model::Strict => {}
                    Model::Ext4Ordered => commit(rec, &mut ordered, &mut data, &mut at, j),
                    _ if lost_parent.contains(inode)
                        || (m == Model::F2fsStrict && pending_here) =>
                    {
                        checkpoint(&mut ordered, &mut at, j);
                        lost_parent.clear();
                    }
                    _ => ordered.retain(|&i| match &rec.ops[i] {
                        Op::Create { inode: c, .. } if c == inode => {
                            at[i] = j;
                            false
                        }
                        _ => true,
                    }),
                }
            }
            Op::DirSync { dir } => {
                at[j] = j;
                match m {
                    Model::Strict => ordered.retain(|&i| {
                        let synced = rec.ops[i]
                            .dirs()
                            .iter()
                            .all(|d| *d == dir.as_str() || dir_synced_between(rec, i, j, d));
                        if synced {
                            at[i] = j;
                        }
                        !synced
                    }),
                    Model::Ext4Ordered => commit(rec, &mut ordered, &mut data, &mut at, j),
                    _ => {
                        checkpoint(&mut ordered, &mut at, j);
                        lost_parent.clear();
                    }
                }
            }
            _ => at[j] = j,
        }
    }
    at
}

/// An ext4 journal commit at op `j`: every pending journalled call becomes durable, and a
/// rename over an existing file brings the renamed file's earlier data (auto_da_alloc).
fn commit(
    rec: &Recording,
    ordered: &mut Vec<usize>,
    data: &mut BTreeMap<usize, Vec<usize>>,
    at: &mut [usize],
    j: usize,
) {
    for i in ordered.drain(..) {
        at[i] = j;
        if let Op::Rename {
            inode: Some(inode),
            replaced: true,
            ..
        } = &rec.ops[i]
        {
            if let Some(pending) = data.get_mut(inode) {
                pending.retain(|&d| {
                    if d < i {
                        at[d] = j;
                    }
                    d > i
                });
            }
        }
    }
}

/// Whether directory `d` was synced by an op strictly between `i` and `j`.
fn dir_synced_between(rec: &Recording, i: usize, j: usize, d: &str) -> bool {
    rec.ops[i + 1..j]
        .iter()
        .any(|o| matches!(o, Op::DirSync { dir } if dir == d))
}

/// What happens to one call at a crash.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fate {
    Kept,
    Lost,
    /// A write kept in part: one flag per 512-byte sector it touches, in order.
    Torn(Vec<bool>),
}

/// The optional calls at one crash point.
#[derive(Clone, Debug)]
pub struct Space {
    /// The power fails before op index `point` (0-based): ops `..point` happened.
    pub point: usize,
    /// The first op that is not durable (everything before it survives).
    pub first_open: usize,
    /// Optional directory operations (and, under ext4, truncates), in order.
    pub ordered: Vec<usize>,
    /// Optional writes and truncates.
    pub data: Vec<usize>,
}

/// Which optional calls survive: the first `ordered_kept` of [`Space::ordered`], and the
/// fate of each of [`Space::data`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Choice {
    pub ordered_kept: usize,
    pub data: Vec<Fate>,
}

/// The sectors write `op` touches.
pub fn sectors(op: &Op) -> u64 {
    match op {
        Op::Write { off, data, .. } if !data.is_empty() => {
            (off + data.len() as u64 - 1) / SECTOR - off / SECTOR + 1
        }
        _ => 1,
    }
}

impl Space {
    pub fn at(rec: &Recording, durable: &[usize], m: Model, point: usize) -> Space {
        let point = point.min(rec.ops.len());
        let first_open = (0..point).find(|&i| durable[i] >= point).unwrap_or(point);
        let mut s = Space {
            point,
            first_open,
            ordered: Vec::new(),
            data: Vec::new(),
        };
        if m != Model::Strict {
            for i in first_open..point {
                if durable[i] >= point {
                    if m.ordered(&rec.ops[i]) {
                        s.ordered.push(i);
                    } else {
                        s.data.push(i);
                    }
                }
            }
        }
        s
    }

    /// States with every optional write whole or absent (saturating).
    pub fn whole_states(&self) -> u128 {
        let data = 1u128
            .checked_shl(self.data.len() as u32)
            .unwrap_or(u128::MAX);
        data.saturating_mul(self.ordered.len() as u128 + 1)
    }

    /// The states run at this point when at most `limit` are: all of them when they are no
    /// more (every optional call whole or absent), else `limit`.
    pub fn states(&self, limit: u64) -> u64 {
        self.whole_states().min(u128::from(limit.max(1))) as u64
    }

    /// State `variant` of [`Space::states`]`(limit)`: 0 keeps nothing optional; all of them
    /// in order when they are few, else drawn from the seed (with torn writes).
    pub fn choice(&self, rec: &Recording, variant: u64, limit: u64, seed: u64) -> Choice {
        let n = self.ordered.len() as u128 + 1;
        if self.whole_states() <= u128::from(limit.max(1)) {
            let v = u128::from(variant);
            let bits = v / n;
            return Choice {
                ordered_kept: (v % n) as usize,
                data: (0..self.data.len())
                    .map(|k| {
                        if bits >> k & 1 == 1 {
                            Fate::Kept
                        } else {
                            Fate::Lost
                        }
                    })
                    .collect(),
            };
        }
        if variant == 0 {
            return Choice {
                ordered_kept: 0,
                data: vec![Fate::Lost; self.data.len()],
            };
        }
        let mut rng = Rng::derive(seed, &format!("state-{}-{variant}", self.point));
        let ordered_kept = rng.range_inclusive(0, self.ordered.len() as u64) as usize;
        let data = self
            .data
            .iter()
            .map(|&i| match rng.below(3) {
                0 => Fate::Lost,
                2 if sectors(&rec.ops[i]) > 1 => Fate::Torn(
                    (0..sectors(&rec.ops[i]))
                        .map(|_| rng.below(2) == 1)
                        .collect(),
                ),
                _ => Fate::Kept,
            })
            .collect();
        Choice { ordered_kept, data }
    }

    /// The fate of ops `first_open..point` under `choice` (a model other than `strict`), by
    /// op index from `first_open`.
    fn optional_fates(&self, rec: &Recording, m: Model, choice: &Choice) -> Vec<Fate> {
        let mut fates = vec![Fate::Kept; self.point - self.first_open];
        let idx = |i: usize| i - self.first_open;
        for (k, &i) in self.ordered.iter().enumerate() {
            if k >= choice.ordered_kept {
                fates[idx(i)] = Fate::Lost;
            }
        }
        for (k, &i) in self.data.iter().enumerate() {
            fates[idx(i)] = choice.data.get(k).cloned().unwrap_or(Fate::Lost);
        }
        if m == Model::Ext4Ordered {
            // auto_da_alloc: a surviving rename over an existing file carries the renamed
            // file's earlier data with it.
            for &r in &self.ordered[..choice.ordered_kept.min(self.ordered.len())] {
                if let Op::Rename {
                    inode: Some(inode),
                    replaced: true,
                    ..
                } = &rec.ops[r]
                {
                    for &d in self.data.iter().filter(|&&d| d < r) {
                        if matches!(&rec.ops[d], Op::Write { inode: w, .. } | Op::Trunc { inode: w, .. } if w == inode)
                        {
                            fates[idx(d)] = Fate::Kept;
                        }
                    }
                }
            }
        }
        fates
    }
}

/// The fates of the ops from `space.first_open` for `choice` under `m` (under `strict`:
/// durable ones kept, the rest lost).
pub fn fates(
    rec: &Recording,
    durable: &[usize],
    m: Model,
    space: &Space,
    choice: &Choice,
) -> Vec<Fate> {
    if m != Model::Strict {
        return space.optional_fates(rec, m, choice);
    }
    (space.first_open..space.point)
        .map(|i| {
            if durable[i] < space.point {
                Fate::Kept
            } else {
                Fate::Lost
            }
        })
        .collect()
}

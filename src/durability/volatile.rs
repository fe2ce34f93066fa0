//! A file's volatile state in the power-loss model: the writes and truncates made since its
//! last sync, in order, which the process sees but the medium does not hold yet, and whether
//! the file itself was created since its last sync. Shared by the SQLite crash VFS and the redb
//! crash backend.

use std::os::unix::fs::FileExt;
use std::path::Path;

/// Sector size of the torn-write model.
pub const SECTOR: usize = 512;

pub enum Change {
    Write { off: u64, data: Vec<u8> },
    Truncate(u64),
}

#[derive(Default)]
pub struct Volatile {
    pub changes: Vec<Change>,
    /// Created and not synced since: its directory entry is volatile too.
    pub created: bool,
}

impl Volatile {
    /// The size the process sees, given the medium's.
    pub fn size(&self, real: u64) -> u64 {
        self.changes.iter().fold(real, |size, c| match c {
            Change::Write { off, data } => size.max(off + data.len() as u64),
            Change::Truncate(s) => *s,
        })
    }

    /// Replay the changes over `out`, which holds the medium's bytes from offset `start`
    /// (zeros past its end); returns the size the process sees. Bytes past that size are
    /// zeroed.
    pub fn overlay(&self, real: u64, start: u64, out: &mut [u8]) -> u64 {
        let end = start + out.len() as u64;
        let mut size = real;
        for change in &self.changes {
            match change {
                Change::Write { off, data } => {
                    let (a, b) = ((*off).max(start), (*off + data.len() as u64).min(end));
                    if a < b {
                        out[(a - start) as usize..(b - start) as usize]
                            .copy_from_slice(&data[(a - *off) as usize..(b - *off) as usize]);
                    }
                    size = size.max(*off + data.len() as u64);
                }
                Change::Truncate(s) => {
                    if *s < end {
                        out[(*s).saturating_sub(start) as usize..].fill(0);
                    }
                    size = *s;
                }
            }
        }
        if size < end {
            out[size.saturating_sub(start) as usize..].fill(0);
        }
        size
    }

    /// The power fails: decide what of this file the medium at `path` keeps. `keep` is asked
    /// once per unsynced sector and truncate, in order (and once for a new file's directory
    /// entry); without it nothing unsynced survives and a new file disappears.
    pub fn power_fail<'k>(
        self,
        path: &Path,
        keep: Option<&mut (dyn FnMut() -> bool + 'k)>,
    ) -> std::io::Result<()> {
        let Some(keep) = keep else {
            if self.created {
                let _ = std::fs::remove_file(path);
            }
            return Ok(());
        };
        if self.created && !keep() {
            let _ = std::fs::remove_file(path);
            return Ok(());
        }
        if self.changes.is_empty() {
            return Ok(());
        }
        let f = std::fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)?;
        for change in self.changes {
            match change {
                Change::Write { off, data } => {
                    for (i, sector) in data.chunks(SECTOR).enumerate() {
                        if keep() {
                            f.write_all_at(sector, off + (i * SECTOR) as u64)?;
                        }
                    }
                }
                Change::Truncate(size) => {
                    if keep() {
                        f.set_len(size)?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! The overlay worked by hand on a 10-byte medium.
    use super::*;

    #[test]
    fn reads_see_writes_and_truncates_in_order() {
        let v = Volatile {
            changes: vec![
                Change::Write {
                    off: 8,
                    data: b"XYZ".to_vec(),
                },
                Change::Truncate(9),
                Change::Write {
                    off: 2,
                    data: b"ab".to_vec(),
                },
            ],
            created: false,
        };
        // Medium "0123456789": write XYZ at 8 → size 11; truncate to 9 → "01234567X";
        // write ab at 2 → "01ab4567X".
        let mut out = *b"0123456789__";
        out[10..].fill(0);
        assert_eq!(v.overlay(10, 0, &mut out), 9);
        assert_eq!(&out, b"01ab4567X\0\0\0");
        let mut tail = *b"6789";
        assert_eq!(v.overlay(10, 6, &mut tail), 9);
        assert_eq!(&tail, b"67X\0");
        assert_eq!(v.size(10), 9);
    }
}

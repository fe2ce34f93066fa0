//! The modelled device as the database sees it: a minimal file system that gives each file
//! (one per file kind) logical pages on first write and returns them on truncate/delete (as
//! TRIM), a RAM write buffer that coalesces writes per logical page and is flushed on sync or
//! when full (partially written pages are merged with their old contents: read-modify-write),
//! and the page-mapped FTL underneath. [`Device::apply`] takes one trace record.

use super::config::{ModelConfig, Precondition};
use super::counters::{EraseDistribution, FlashCounters};
use super::ftl::{Ftl, NONE};
use crate::engine::io::trace::{IoOp, IoRecord};
use crate::workload::rng::Rng;

const FULL: u64 = u64::MAX;

#[derive(Clone, Debug)]
pub struct Device {
    ftl: Ftl,
    page_size: u64,
    sector: u64,
    /// Per file kind: file page → logical page.
    files: [Vec<u32>; crate::engine::io::FileKind::ALL.len()],
    fs_free: Vec<u32>,
    fs_next: u32,
    /// Logical pages reserved by preconditioning (other data on the device).
    reserved: u32,
    /// Buffered pages in arrival order with the sectors written so far.
    buffer: Vec<(u32, u64)>,
    /// Logical page → index in `buffer`, or NONE.
    slot: Vec<u32>,
    buffer_cap: usize,
}

impl Device {
    /// A device in the configured precondition, its counters at zero.
    pub fn new(c: &ModelConfig) -> Self {
        let ftl = Ftl::new(c);
        let pages = ftl.logical_pages();
        let mut d = Device {
            ftl,
            page_size: u64::from(c.page_size),
            sector: u64::from(c.page_size / 64),
            files: Default::default(),
            fs_free: Vec::new(),
            fs_next: 0,
            reserved: 0,
            buffer: Vec::with_capacity(c.write_buffer_pages as usize),
            slot: vec![NONE; pages as usize],
            buffer_cap: c.write_buffer_pages as usize,
        };
        if let Precondition::Aged { fill, frag } = c.precondition {
            let n = (f64::from(pages) * fill) as u32;
            for lpn in 0..n {
                d.ftl.write(lpn);
            }
            let mut rng = Rng::derive(c.seed, "flash-precondition");
            if n > 0 {
                for _ in 0..(f64::from(n) * frag) as u64 {
                    d.ftl.write(rng.below(u64::from(n)) as u32);
                }
            }
            d.fs_next = n;
            d.reserved = n;
        }
        d.ftl.counters = FlashCounters::default();
        d
    }

    /// Counters since the device was created (preconditioning excluded).
    #[inline]
    pub fn counters(&self) -> FlashCounters {
        self.ftl.counters
    }

    pub fn erase_distribution(&self) -> EraseDistribution {
        EraseDistribution::of(&self.ftl.erase_counts())
    }

    pub fn free_blocks(&self) -> usize {
        self.ftl.free_blocks()
    }

    /// Logical pages the database's files hold now.
    pub fn file_pages(&self) -> u64 {
        (self.fs_next - self.reserved) as u64 - self.fs_free.len() as u64
    }

    /// Apply one trace record. Errors only when the logical space is full.
    #[inline]
    pub fn apply(&mut self, r: &IoRecord) -> Result<(), String> {
        let k = r.kind as usize;
        if matches!(r.op, IoOp::Read | IoOp::Write) {
            let capacity = u64::from(self.ftl.logical_pages()) * self.page_size;
            if r.offset.checked_add(r.len).is_none_or(|end| end > capacity) {
                return Err(format!(
                    "a {} of {} bytes at offset {} lies beyond the modelled device's {capacity} bytes",
                    r.op.name(),
                    r.len,
                    r.offset
                ));
            }
        }
        match r.op {
            IoOp::Read => {
                self.ftl.counters.user_read_bytes += r.len;
                self.each_page(r.offset, r.len, |d, fp, _| {
                    let lpn = d.files[k].get(fp as usize).copied().unwrap_or(NONE);
                    if lpn != NONE && !d.buffered_whole(lpn) {
                        d.ftl.read(lpn);
                    }
                    Ok(())
                })
            }
            IoOp::Write => {
                self.ftl.counters.user_write_bytes += r.len;
                self.each_page(r.offset, r.len, |d, fp, mask| {
                    let lpn = d.lpn_for_write(k, fp)?;
                    d.write_page(lpn, mask);
                    Ok(())
                })
            }
            IoOp::Sync => {
                self.ftl.counters.syncs += 1;
                self.flush();
                Ok(())
            }
            IoOp::Truncate => {
                self.truncate(k, r.offset);
                Ok(())
            }
            IoOp::Delete => {
                self.truncate(k, 0);
                Ok(())
            }
            IoOp::Mark => Ok(()),
        }
    }

    /// Write every buffered page to flash.
    pub fn flush(&mut self) {
        for i in 0..self.buffer.len() {
            let (lpn, mask) = self.buffer[i];
            self.slot[lpn as usize] = NONE;
            self.program(lpn, mask);
        }
        self.buffer.clear();
    }

    /// Call `f(self, file_page, sector_mask)` for each page `[offset, offset+len)` touches.
    #[inline]
    fn each_page(
        &mut self,
        offset: u64,
        len: u64,
        mut f: impl FnMut(&mut Self, u64, u64) -> Result<(), String>,
    ) -> Result<(), String> {
        if len == 0 {
            return Ok(());
        }
        let end = offset + len;
        let ps = self.page_size;
        for fp in offset / ps..=(end - 1) / ps {
            let (p0, p1) = (fp * ps, fp * ps + ps);
            let (s, e) = (offset.max(p0) - p0, end.min(p1) - p0);
            let mask = if s == 0 && e == ps {
                FULL
            } else {
                let first = s.div_ceil(self.sector);
                let last = e / self.sector;
                if last > first {
                    (((1u128 << (last - first)) - 1) as u64) << first
                } else {
                    0
                }
            };
            f(self, fp, mask)?;
        }
        Ok(())
    }

    #[inline]
    fn buffered_whole(&self, lpn: u32) -> bool {
        let s = self.slot[lpn as usize];
        s != NONE && self.buffer[s as usize].1 == FULL
    }

    #[inline]
    fn lpn_for_write(&mut self, k: usize, fp: u64) -> Result<u32, String> {
        let fp = fp as usize;
        if let Some(&lpn) = self.files[k].get(fp) {
            if lpn != NONE {
                return Ok(lpn);
            }
        }
        let lpn = match self.fs_free.pop() {
            Some(l) => l,
            None if self.fs_next < self.ftl.logical_pages() => {
                self.fs_next += 1;
                self.fs_next - 1
            }
            None => {
                return Err(format!(
                    "the modelled device is full: {} logical pages, {} of them preconditioned; raise capacity_mib or lower fill",
                    self.ftl.logical_pages(),
                    self.reserved
                ))
            }
        };
        let file = &mut self.files[k];
        if file.len() <= fp {
            file.resize(fp + 1, NONE);
        }
        file[fp] = lpn;
        Ok(lpn)
    }

    #[inline]
    fn write_page(&mut self, lpn: u32, mask: u64) {
        if self.buffer_cap == 0 {
            self.program(lpn, mask);
            return;
        }
        let s = self.slot[lpn as usize];
        if s != NONE {
            self.buffer[s as usize].1 |= mask;
            return;
        }
        if self.buffer.len() >= self.buffer_cap {
            self.flush();
        }
        self.slot[lpn as usize] = self.buffer.len() as u32;
        self.buffer.push((lpn, mask));
    }

    #[inline]
    fn program(&mut self, lpn: u32, mask: u64) {
        if mask != FULL {
            self.ftl.read_for_merge(lpn);
        }
        self.ftl.write(lpn);
    }

    /// Drop file pages from `size` on (the page holding byte `size - 1` stays).
    fn truncate(&mut self, k: usize, size: u64) {
        let keep = size.div_ceil(self.page_size) as usize;
        if self.files[k].len() <= keep {
            return;
        }
        let dropped: Vec<u32> = self.files[k].drain(keep..).filter(|&l| l != NONE).collect();
        if dropped.iter().any(|&l| self.slot[l as usize] != NONE) {
            for &l in &dropped {
                self.slot[l as usize] = NONE;
            }
            self.buffer.retain(|(l, _)| !dropped.contains(l));
            for (i, (l, _)) in self.buffer.iter().enumerate() {
                self.slot[*l as usize] = i as u32;
            }
        }
        for l in dropped {
            self.ftl.trim(l);
            self.fs_free.push(l);
        }
    }
}

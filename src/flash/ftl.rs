//! The page-mapped flash translation layer: every logical page maps to any physical page;
//! writes go out of place to the active block, the old copy becomes invalid; when fewer than
//! `gc_threshold` blocks are free the garbage collector picks a victim (see [`super::victims`]),
//! copies its valid pages to the active block and erases it. Free blocks are handed out
//! least-worn first (dynamic wear levelling: a block is only chosen among free blocks; cold
//! data is never moved just to spread wear).

use super::config::{ModelConfig, VictimPolicy};
use super::counters::FlashCounters;
use super::victims::Victims;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

pub const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Free,
    Active,
    Closed,
    /// Being cleaned by the garbage collector.
    Victim,
}

#[derive(Clone, Copy, Debug)]
struct Block {
    valid: u32,
    written: u32,
    erase_count: u32,
    /// Program clock (pages programmed so far) at the block's last program.
    last_write: u64,
    state: State,
}

#[derive(Clone, Debug)]
pub struct Ftl {
    ppb: u32,
    l2p: Vec<u32>,
    p2l: Vec<u32>,
    blocks: Vec<Block>,
    free: BinaryHeap<Reverse<(u32, u32)>>,
    active: u32,
    victims: Victims,
    gc_threshold: usize,
    clock: u64,
    in_gc: bool,
    read_ns: u64,
    program_ns: u64,
    erase_ns: u64,
    pub counters: FlashCounters,
}

impl Ftl {
    pub fn new(c: &ModelConfig) -> Self {
        let mut f = Self::with_geometry(
            c.logical_pages() as u32,
            c.physical_blocks() as u32,
            c.pages_per_block,
            c.gc,
            c.gc_threshold,
        );
        (f.read_ns, f.program_ns, f.erase_ns) = (c.read_ns, c.program_ns, c.erase_ns);
        f
    }

    /// An FTL of any size (small ones for hand-checked tests), default timings.
    pub fn with_geometry(
        logical_pages: u32,
        physical_blocks: u32,
        ppb: u32,
        gc: VictimPolicy,
        gc_threshold: u32,
    ) -> Self {
        let nblocks = physical_blocks as usize;
        let blocks = vec![
            Block {
                valid: 0,
                written: 0,
                erase_count: 0,
                last_write: 0,
                state: State::Free,
            };
            nblocks
        ];
        let free = (0..nblocks as u32).map(|b| Reverse((0, b))).collect();
        Ftl {
            ppb,
            l2p: vec![NONE; logical_pages as usize],
            p2l: vec![NONE; nblocks * ppb as usize],
            blocks,
            free,
            active: NONE,
            victims: Victims::new(gc, nblocks, ppb),
            gc_threshold: gc_threshold as usize,
            clock: 0,
            in_gc: false,
            read_ns: 25_000,
            program_ns: 300_000,
            erase_ns: 500_000,
            counters: FlashCounters::default(),
        }
    }

    pub fn logical_pages(&self) -> u32 {
        self.l2p.len() as u32
    }

    #[inline]
    pub fn is_mapped(&self, lpn: u32) -> bool {
        self.l2p[lpn as usize] != NONE
    }

    /// A host read of logical page `lpn`; unmapped pages (never written or trimmed) need no
    /// flash access.
    #[inline]
    pub fn read(&mut self, lpn: u32) {
        if self.is_mapped(lpn) {
            self.counters.host_reads += 1;
            self.counters.flash_ns += self.read_ns;
        }
    }

    /// The old contents of `lpn` are read to merge a partial-page write.
    #[inline]
    pub fn read_for_merge(&mut self, lpn: u32) {
        if self.is_mapped(lpn) {
            self.counters.rmw_reads += 1;
            self.counters.flash_ns += self.read_ns;
        }
    }

    /// Program logical page `lpn` out of place.
    #[inline]
    pub fn write(&mut self, lpn: u32) {
        self.counters.host_programs += 1;
        self.program(lpn);
    }

    /// Forget logical page `lpn` (TRIM); its physical copy becomes invalid.
    #[inline]
    pub fn trim(&mut self, lpn: u32) {
        let old = self.l2p[lpn as usize];
        if old != NONE {
            self.invalidate(old);
            self.l2p[lpn as usize] = NONE;
            self.counters.trimmed_pages += 1;
        }
    }

    /// Erase counts of every physical block.
    pub fn erase_counts(&self) -> Vec<u32> {
        self.blocks.iter().map(|b| b.erase_count).collect()
    }

    pub fn free_blocks(&self) -> usize {
        self.free.len()
    }

    #[inline]
    fn program(&mut self, lpn: u32) {
        let old = self.l2p[lpn as usize];
        if old != NONE {
            self.invalidate(old);
        }
        let ppn = self.next_page();
        self.l2p[lpn as usize] = ppn;
        self.p2l[ppn as usize] = lpn;
        let b = &mut self.blocks[(ppn / self.ppb) as usize];
        b.valid += 1;
        self.clock += 1;
        b.last_write = self.clock;
        self.counters.flash_ns += self.program_ns;
    }

    #[inline]
    fn invalidate(&mut self, ppn: u32) {
        self.p2l[ppn as usize] = NONE;
        let bi = ppn / self.ppb;
        let b = &mut self.blocks[bi as usize];
        let old_valid = b.valid;
        b.valid -= 1;
        if b.state == State::Closed {
            self.victims.invalidated(bi, old_valid);
        }
    }

    /// The next physical page of the active block, opening a new block (and collecting
    /// garbage) when it is full.
    #[inline]
    fn next_page(&mut self) -> u32 {
        if self.active != NONE {
            let b = &mut self.blocks[self.active as usize];
            if b.written < self.ppb {
                b.written += 1;
                return self.active * self.ppb + b.written - 1;
            }
        }
        self.open_block();
        self.next_page()
    }

    #[cold]
    fn open_block(&mut self) {
        if self.active != NONE {
            let a = self.active;
            self.blocks[a as usize].state = State::Closed;
            self.victims.closed(a, self.blocks[a as usize].valid);
        }
        let Reverse((_, b)) = self
            .free
            .pop()
            .expect("flash model invariant: a free block exists (spare blocks > gc_threshold + 1)");
        self.blocks[b as usize].state = State::Active;
        self.active = b;
        if !self.in_gc {
            self.in_gc = true;
            while self.free.len() < self.gc_threshold && self.collect_one() {}
            self.in_gc = false;
        }
    }

    /// Clean one victim block; false if no victim would free anything.
    fn collect_one(&mut self) -> bool {
        let ppb = self.ppb;
        let clock = self.clock;
        let closed = self.blocks.iter().enumerate().map(|(i, b)| {
            let info = (b.state == State::Closed).then(|| (b.valid, clock - b.last_write));
            (i as u32, info)
        });
        let Some(v) = self.victims.take(ppb, closed) else {
            return false;
        };
        if self.blocks[v as usize].valid == ppb {
            // Nothing to gain; put it back (only reachable with no invalid page anywhere).
            self.victims.closed(v, ppb);
            return false;
        }
        self.blocks[v as usize].state = State::Victim;
        let base = v * ppb;
        for ppn in base..base + ppb {
            let lpn = self.p2l[ppn as usize];
            if lpn != NONE {
                self.counters.gc_reads += 1;
                self.counters.gc_programs += 1;
                self.counters.flash_ns += self.read_ns;
                self.program(lpn);
            }
        }
        let b = &mut self.blocks[v as usize];
        debug_assert_eq!(b.valid, 0);
        b.erase_count += 1;
        b.written = 0;
        b.state = State::Free;
        self.free.push(Reverse((b.erase_count, v)));
        self.counters.erases += 1;
        self.counters.flash_ns += self.erase_ns;
        true
    }
}

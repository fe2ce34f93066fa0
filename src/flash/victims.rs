//! Garbage-collection victim selection over the closed (fully written) blocks: greedy keeps
//! blocks in buckets by valid-page count (O(1) updates, victim from the lowest bucket); FIFO
//! keeps them in the order they were closed; cost-benefit scans every closed block and
//! maximises age × (1 − u) / 2u (Kawaguchi et al. 1995, after Rosenblum & Ousterhout's LFS).

use super::config::VictimPolicy;
use std::collections::VecDeque;

const NONE: u32 = u32::MAX;

/// Per-policy index of the closed blocks.
#[derive(Clone, Debug)]
pub enum Victims {
    Greedy(Buckets),
    Fifo(VecDeque<u32>),
    /// Closed-ness and ages live in the FTL's block table; nothing extra to index.
    CostBenefit,
}

impl Victims {
    pub fn new(policy: VictimPolicy, blocks: usize, pages_per_block: u32) -> Self {
        match policy {
            VictimPolicy::Greedy => Victims::Greedy(Buckets::new(blocks, pages_per_block)),
            VictimPolicy::Fifo => Victims::Fifo(VecDeque::with_capacity(blocks)),
            VictimPolicy::CostBenefit => Victims::CostBenefit,
        }
    }

    /// Block `b` was closed holding `valid` valid pages.
    #[inline]
    pub fn closed(&mut self, b: u32, valid: u32) {
        match self {
            Victims::Greedy(k) => k.insert(b, valid),
            Victims::Fifo(q) => q.push_back(b),
            Victims::CostBenefit => {}
        }
    }

    /// A page of closed block `b` became invalid; it had `old_valid` valid pages before.
    #[inline]
    pub fn invalidated(&mut self, b: u32, old_valid: u32) {
        if let Victims::Greedy(k) = self {
            k.remove(b, old_valid);
            k.insert(b, old_valid - 1);
        }
    }

    /// Take the next victim out of the index. `closed` lists, per block, `Some((valid, age))`
    /// for closed blocks (used by cost-benefit only).
    pub fn take(
        &mut self,
        pages_per_block: u32,
        closed: impl Iterator<Item = (u32, Option<(u32, u64)>)>,
    ) -> Option<u32> {
        match self {
            Victims::Greedy(k) => k.take_min(),
            Victims::Fifo(q) => q.pop_front(),
            Victims::CostBenefit => {
                let ppb = f64::from(pages_per_block);
                let mut best: Option<(f64, u32)> = None;
                for (b, info) in closed {
                    let Some((valid, age)) = info else { continue };
                    let u = f64::from(valid) / ppb;
                    let score = if valid == 0 {
                        f64::INFINITY
                    } else {
                        (1.0 - u) * (age as f64 + 1.0) / (2.0 * u)
                    };
                    if best.is_none_or(|(s, _)| score > s) {
                        best = Some((score, b));
                    }
                }
                best.map(|(_, b)| b)
            }
        }
    }
}

/// Closed blocks bucketed by valid-page count, as intrusive doubly linked lists.
#[derive(Clone, Debug)]
pub struct Buckets {
    head: Vec<u32>,
    next: Vec<u32>,
    prev: Vec<u32>,
    /// Valid count each listed block is filed under.
    at: Vec<u32>,
}

impl Buckets {
    fn new(blocks: usize, pages_per_block: u32) -> Self {
        Buckets {
            head: vec![NONE; pages_per_block as usize + 1],
            next: vec![NONE; blocks],
            prev: vec![NONE; blocks],
            at: vec![NONE; blocks],
        }
    }

    #[inline]
    fn insert(&mut self, b: u32, valid: u32) {
        let (bi, v) = (b as usize, valid as usize);
        let h = self.head[v];
        self.next[bi] = h;
        self.prev[bi] = NONE;
        if h != NONE {
            self.prev[h as usize] = b;
        }
        self.head[v] = b;
        self.at[bi] = valid;
    }

    #[inline]
    fn remove(&mut self, b: u32, valid: u32) {
        let bi = b as usize;
        debug_assert_eq!(self.at[bi], valid);
        let (p, n) = (self.prev[bi], self.next[bi]);
        if p == NONE {
            self.head[valid as usize] = n;
        } else {
            self.next[p as usize] = n;
        }
        if n != NONE {
            self.prev[n as usize] = p;
        }
        self.at[bi] = NONE;
    }

    fn take_min(&mut self) -> Option<u32> {
        let v = self.head.iter().position(|&h| h != NONE)?;
        let b = self.head[v];
        self.remove(b, v as u32);
        Some(b)
    }
}

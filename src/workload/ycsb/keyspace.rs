//! [`KeySpace`]: the loaded key range, the inserts made since, and the request distribution
//! that picks the key of each read, update or scan. Shared by every workload that chooses keys
//! the way YCSB does (the PocketData SQL workloads and TOML `[sql]` specs too).

use super::choices::Distribution;
use crate::workload::generators::{
    Counter, EtaRule, Hotspot, ScrambledZipfian, SkewedLatest, Uniform,
};
use crate::workload::rng::Rng;

/// The loaded key range, the inserts made since, and the request distribution over them.
///
/// Keys run from `first`; `first + existing` is the next key to insert. Shared with the
/// PocketData SQL workloads, which choose keys the same way.
#[derive(Clone, Debug)]
pub(crate) struct KeySpace {
    first: u64,
    existing: u64,
    chooser: Chooser,
}

#[derive(Clone, Debug)]
enum Chooser {
    Uniform(Uniform),
    Sequential(Counter),
    Zipfian(ScrambledZipfian),
    /// Zipfian over offsets from `first`.
    Latest(SkewedLatest),
    Hotspot(Hotspot),
}

impl KeySpace {
    /// `records` loaded keys from `first`; `expected_new` sizes the zipfian key space;
    /// `hotspot` is (data fraction, operation fraction).
    pub(crate) fn new(
        dist: Distribution,
        first: u64,
        records: u64,
        expected_new: u64,
        hotspot: (f64, f64),
    ) -> Self {
        let last = first + records.max(1) - 1;
        let chooser = match dist {
            Distribution::Uniform => Chooser::Uniform(Uniform::new(first, last)),
            Distribution::Sequential => Chooser::Sequential(Counter::new(first, last)),
            Distribution::Zipfian => {
                Chooser::Zipfian(ScrambledZipfian::new(first, last + 1 + expected_new))
            }
            Distribution::Latest => {
                Chooser::Latest(SkewedLatest::new(last - first, EtaRule::Construction))
            }
            Distribution::LatestConsistent => {
                Chooser::Latest(SkewedLatest::new(last - first, EtaRule::Current))
            }
            Distribution::Hotspot => {
                Chooser::Hotspot(Hotspot::new(first, last, hotspot.0, hotspot.1))
            }
        };
        KeySpace {
            first,
            existing: records,
            chooser,
        }
    }

    /// The first key and one past the last existing key.
    pub(crate) fn range(&self) -> (u64, u64) {
        (self.first, self.first + self.existing)
    }

    /// The key of the next read, update or scan.
    #[inline]
    pub(crate) fn choose(&mut self, rng: &mut Rng) -> u64 {
        let end = self.first + self.existing;
        match &mut self.chooser {
            Chooser::Uniform(g) => g.next(rng),
            Chooser::Sequential(g) => g.next(rng),
            Chooser::Hotspot(g) => g.next(rng),
            Chooser::Latest(g) => self.first + g.next(rng),
            Chooser::Zipfian(g) => loop {
                let key = g.next(rng);
                if key < end || self.existing == 0 {
                    return key;
                }
            },
        }
    }

    /// The key of the next insert, which exists (is acknowledged) from now on.
    #[inline]
    pub(crate) fn insert(&mut self) -> u64 {
        let key = self.first + self.existing;
        self.existing += 1;
        if let Chooser::Latest(g) = &mut self.chooser {
            g.set_latest(key - self.first);
        }
        key
    }
}

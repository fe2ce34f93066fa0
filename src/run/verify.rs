//! Read-your-writes verification inside the run: the replayer remembers, per key, the value
//! seed each field was last written with (load-phase inserts, run-phase inserts and updates),
//! and after each point read compares what the engine returned with the bytes those seeds
//! generate ([`crate::workload::values::field_matches`]: generated eight at a time and
//! compared as they come, nothing written). A difference fails the operation.
//!
//! It costs nothing inside the timed window: the replay decides before each read whether it
//! will be checked ([`Verifier::will_check`]), the engine keeps a copy of the record only then,
//! and the comparison happens after the end timestamp. Memory is
//! bounded: with more than [`MAX_TRACKED`] records in the load phase only a deterministic
//! sample of keys (one in `stride`, by a hash of the key number) is tracked; reads of other
//! keys count as unchecked. Scans are not checked (their rows are counted). Time is bounded
//! too: the first [`CHECK_ALL_FIRST`] point reads are all checked, then one in
//! [`CHECK_ONE_IN`] (by operation order), so the check does not dominate saturated runs; the
//! others count as unchecked.

use crate::engine::kv::fields;
use crate::engine::LastRead;
use crate::workload::model::{DataModel, KeyValueModel};
use crate::workload::op::Op;
use crate::workload::rng::splitmix64;
use crate::workload::values::field_matches;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Keys tracked at most (about 8 bytes × fields each).
pub const MAX_TRACKED: u64 = 200_000;
/// Point reads checked before sampling starts.
pub const CHECK_ALL_FIRST: u64 = 2_000;
/// After the first reads, one point read in this many is checked.
pub const CHECK_ONE_IN: u64 = 16;

/// What the check found over a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verification {
    /// Point reads whose record was compared field by field with what was written.
    pub checked: u64,
    /// Point reads that returned something other than what was last written.
    pub mismatches: u64,
    /// Point reads not checked: key outside the tracked sample, or the engine keeps no copy.
    pub unchecked: u64,
    /// One key in `stride` is tracked (1: every key).
    pub stride: u64,
}

/// The seeds each field of a record was last written with.
enum Written {
    /// Every field from one seed (an insert or a whole-record update).
    All(u64),
    PerField(Box<[u64]>),
}

pub struct Verifier {
    model: Option<KeyValueModel>,
    written: HashMap<u64, Written>,
    pub totals: Verification,
    /// Point reads seen so far (checked or not), for the time-bounding sample.
    reads: u64,
    /// Whether the coming read is in the sample, decided by [`Verifier::will_check`].
    planned: Option<bool>,
}

impl Verifier {
    /// A verifier for a workload of `model` with `load_ops` records loaded.
    pub fn new(model: &DataModel, load_ops: u64) -> Self {
        let model = match model {
            DataModel::KeyValue(m) => Some(m.clone()),
            DataModel::Sql => None,
        };
        Verifier {
            model,
            written: HashMap::new(),
            totals: Verification {
                stride: load_ops / MAX_TRACKED + 1,
                ..Verification::default()
            },
            reads: 0,
            planned: None,
        }
    }

    /// Whether this point read is in the checked sample (all of the first reads, then one in
    /// [`CHECK_ONE_IN`]).
    fn sampled(&mut self) -> bool {
        self.reads += 1;
        self.reads <= CHECK_ALL_FIRST || self.reads.is_multiple_of(CHECK_ONE_IN)
    }

    /// Decide, before `op` runs, whether [`Verifier::check`] will compare what it reads (so the
    /// engine keeps a copy of the record only then); the next `check` uses this decision.
    pub fn will_check(&mut self, op: &Op) -> bool {
        let Some(key) = self.point_read(op) else {
            return false;
        };
        let sampled = self.sampled();
        self.planned = Some(sampled);
        sampled && self.tracked(key)
    }

    /// The key `op` reads a record of, when it is a point read this verifier can check.
    fn point_read(&self, op: &Op) -> Option<u64> {
        match *op {
            Op::Read { key } | Op::ReadModifyWrite { key, .. } if self.model.is_some() => Some(key),
            _ => None,
        }
    }

    fn tracked(&self, key: u64) -> bool {
        let mut h = key;
        self.totals.stride == 1 || splitmix64(&mut h).is_multiple_of(self.totals.stride)
    }

    /// Remember what a successful write stored.
    pub fn wrote(&mut self, op: &Op) {
        let Some(m) = &self.model else { return };
        let fields = usize::from(m.field_count);
        let (key, field, seed) = match *op {
            Op::Insert { key, seed } => (key, None, seed),
            Op::Update { key, field, seed } | Op::ReadModifyWrite { key, field, seed } => {
                (key, field, seed)
            }
            _ => return,
        };
        if !self.tracked(key) {
            return;
        }
        match field {
            None => {
                self.written.insert(key, Written::All(seed));
            }
            Some(f) if usize::from(f) < fields => {
                // An update of a record that was never written changes nothing.
                if let Some(w) = self.written.get_mut(&key) {
                    if let Written::All(s) = *w {
                        *w = Written::PerField(vec![s; fields].into_boxed_slice());
                    }
                    if let Written::PerField(seeds) = w {
                        seeds[usize::from(f)] = seed;
                    }
                }
            }
            Some(_) => {}
        }
    }

    /// Check the record a read returned against what was written; `Err` describes the first
    /// difference.
    pub fn check(&mut self, op: &Op, read: LastRead<'_>) -> Result<(), String> {
        let Some(key) = self.point_read(op) else {
            return Ok(());
        };
        let sampled = match self.planned.take() {
            Some(s) => s,
            None => self.sampled(),
        };
        if self.model.is_none() {
            return Ok(());
        }
        if !sampled || !self.tracked(key) || matches!(read, LastRead::Unsupported) {
            self.totals.unchecked += 1;
            return Ok(());
        }
        self.compare(key, read)
    }

    /// Whether `key` is in the tracked sample (every key when one in 1 is tracked).
    pub fn tracks(&self, key: u64) -> bool {
        self.model.is_some() && self.tracked(key)
    }

    /// Compare the record read for `key` with what was written to it, outside the read
    /// sample (a durability check reads every tracked key once); counted as checked.
    pub fn compare(&mut self, key: u64, read: LastRead<'_>) -> Result<(), String> {
        let Some(m) = &self.model else { return Ok(()) };
        self.totals.checked += 1;
        let outcome = match (self.written.get(&key), read) {
            (None, LastRead::NotFound) => Ok(()),
            (None, _) => Err(format!(
                "read-your-writes: key {key} returned a record but none was written"
            )),
            (Some(_), LastRead::NotFound) => Err(format!(
                "read-your-writes: key {key} was written but the read found no record"
            )),
            (Some(w), LastRead::Record(record)) => {
                let len = m.field_length as usize;
                let mut got = fields(record);
                let mut result = Ok(());
                for f in 0..m.field_count {
                    let seed = match w {
                        Written::All(s) => *s,
                        Written::PerField(seeds) => seeds[usize::from(f)],
                    };
                    match got.next() {
                        Some(v) if field_matches(seed, f, len, v) => {}
                        Some(v) => {
                            result = Err(format!(
                                "read-your-writes: key {key} field{f}: read {} bytes that differ from the value written with seed {seed}",
                                v.len()
                            ));
                            break;
                        }
                        None => {
                            result = Err(format!(
                                "read-your-writes: key {key}: the record read has no field{f}"
                            ));
                            break;
                        }
                    }
                }
                result
            }
            (Some(_), LastRead::Unsupported) => Ok(()),
        };
        if outcome.is_err() {
            self.totals.mismatches += 1;
        }
        outcome
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::kv::encode_record;
    use crate::workload::values::fill_field;

    fn record(seeds: &[u64], len: usize) -> Vec<u8> {
        let values: Vec<Vec<u8>> = seeds
            .iter()
            .enumerate()
            .map(|(f, s)| {
                let mut v = Vec::new();
                fill_field(*s, f as u16, len, &mut v);
                v
            })
            .collect();
        let mut out = Vec::new();
        encode_record(&values, &mut out);
        out
    }

    #[test]
    fn reads_are_checked_against_the_last_write_per_field() {
        let m = KeyValueModel {
            field_count: 3,
            field_length: 8,
            ..KeyValueModel::default()
        };
        let mut v = Verifier::new(&DataModel::KeyValue(m), 10);
        v.wrote(&Op::Insert { key: 1, seed: 5 });
        let read = Op::Read { key: 1 };
        assert!(v
            .check(&read, LastRead::Record(&record(&[5, 5, 5], 8)))
            .is_ok());
        v.wrote(&Op::Update {
            key: 1,
            field: Some(2),
            seed: 9,
        });
        let stale = record(&[5, 5, 5], 8);
        let e = v.check(&read, LastRead::Record(&stale)).unwrap_err();
        assert!(e.contains("field2"), "{e}");
        assert!(v
            .check(&read, LastRead::Record(&record(&[5, 5, 9], 8)))
            .is_ok());
        assert!(v.check(&read, LastRead::NotFound).is_err());
        // A key never written must not be found.
        assert!(v.check(&Op::Read { key: 2 }, LastRead::NotFound).is_ok());
        assert!(v
            .check(&Op::Read { key: 2 }, LastRead::Record(&stale))
            .is_err());
        assert_eq!((v.totals.checked, v.totals.mismatches), (6, 3));
    }

    #[test]
    fn the_read_sample_is_decided_before_the_read_and_used_by_its_check() {
        let m = KeyValueModel {
            field_count: 1,
            field_length: 4,
            ..KeyValueModel::default()
        };
        let mut v = Verifier::new(&DataModel::KeyValue(m), 10);
        v.wrote(&Op::Insert { key: 1, seed: 5 });
        let read = Op::Read { key: 1 };
        let good = record(&[5], 4);
        // The first CHECK_ALL_FIRST reads are all in the sample; after them one in
        // CHECK_ONE_IN, by read count: reads 2 016 and 2 032 of the next 32.
        let mut planned = 0;
        for _ in 0..CHECK_ALL_FIRST + 32 {
            if v.will_check(&read) {
                planned += 1;
            }
            v.check(&read, LastRead::Record(&good)).unwrap();
        }
        assert_eq!(planned, CHECK_ALL_FIRST + 2);
        assert_eq!(
            (v.totals.checked, v.totals.unchecked),
            (CHECK_ALL_FIRST + 2, 30)
        );
        // Writes and scans are never checked, and do not move the sample.
        assert!(!v.will_check(&Op::Insert { key: 2, seed: 1 }));
        assert!(!v.will_check(&Op::Scan { key: 1, len: 3 }));
    }
}

//! The run phase as a lazy stream: [`YcsbRun`] draws each operation's kind from the mix, its
//! key from the [`KeySpace`], and its scan length, field and value seed from the run stream.

use super::choices::ScanLengthDistribution;
use super::keyspace::KeySpace;
use super::params::{Kind, YcsbParams};
use crate::workload::generators::{Discrete, Uniform, Zipfian};
use crate::workload::op::{Op, TimedOp};
use crate::workload::rng::Rng;

/// Scan lengths, uniform or zipfian over `minscanlength..=maxscanlength`.
enum ScanLengths {
    Uniform(Uniform),
    Zipfian(Zipfian),
}

impl ScanLengths {
    fn new(p: &YcsbParams) -> Self {
        let lo = u64::from(p.min_scan_length.max(1));
        let hi = u64::from(p.max_scan_length).max(lo);
        match p.scan_length_distribution {
            ScanLengthDistribution::Uniform => ScanLengths::Uniform(Uniform::new(lo, hi)),
            ScanLengthDistribution::Zipfian => ScanLengths::Zipfian(Zipfian::new(lo, hi)),
        }
    }

    #[inline]
    fn next(&mut self, rng: &mut Rng) -> u32 {
        let n = match self {
            ScanLengths::Uniform(g) => g.next(rng),
            ScanLengths::Zipfian(g) => g.next(rng),
        };
        u32::try_from(n).unwrap_or(u32::MAX)
    }
}

/// The run phase: a lazy stream of `operation_count` operations.
pub(super) struct YcsbRun {
    rng: Rng,
    remaining: u64,
    mix: Discrete<Kind>,
    keys: KeySpace,
    scan_lengths: ScanLengths,
    /// The field an update writes; `None` writes every field.
    fields: Option<Uniform>,
}

impl YcsbRun {
    pub(super) fn new(p: &YcsbParams, rng: Rng) -> Self {
        let read_only = || Discrete::new([(1.0, Kind::Read)]);
        let mix = p.mix().or_else(read_only).expect("a positive weight");
        let keys = KeySpace::new(
            p.request_distribution,
            p.insert_start,
            p.record_count,
            p.expected_new_keys(),
            (p.hotspot_data_fraction, p.hotspot_op_fraction),
        );
        let one_field = !p.write_all_fields && p.field_count > 0;
        YcsbRun {
            rng,
            remaining: p.operation_count,
            mix,
            keys,
            scan_lengths: ScanLengths::new(p),
            fields: one_field.then(|| Uniform::new(0, u64::from(p.field_count) - 1)),
        }
    }

    #[inline]
    fn field(&mut self) -> Option<u16> {
        // The chooser's range is 0..field_count, which fits in u16.
        self.fields.as_ref().map(|f| f.next(&mut self.rng) as u16)
    }

    fn op(&mut self, kind: Kind) -> Op {
        match kind {
            Kind::Read => Op::Read {
                key: self.keys.choose(&mut self.rng),
            },
            Kind::Scan => Op::Scan {
                key: self.keys.choose(&mut self.rng),
                len: self.scan_lengths.next(&mut self.rng),
            },
            Kind::Insert => Op::Insert {
                key: self.keys.insert(),
                seed: self.rng.next_u64(),
            },
            Kind::Update => Op::Update {
                key: self.keys.choose(&mut self.rng),
                field: self.field(),
                seed: self.rng.next_u64(),
            },
            Kind::ReadModifyWrite => Op::ReadModifyWrite {
                key: self.keys.choose(&mut self.rng),
                field: self.field(),
                seed: self.rng.next_u64(),
            },
        }
    }
}

impl Iterator for YcsbRun {
    type Item = TimedOp;

    #[inline]
    fn next(&mut self) -> Option<TimedOp> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let kind = self.mix.next(&mut self.rng);
        Some(TimedOp {
            op: self.op(kind),
            delay_ns: 0,
            recorded: None,
        })
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = usize::try_from(self.remaining).unwrap_or(usize::MAX);
        (n, Some(n))
    }
}

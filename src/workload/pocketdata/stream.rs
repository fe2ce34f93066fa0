//! The run phase as a lazy stream: [`SqlRun`] draws each operation's action from the mix (on
//! a stream of its own, so the statements can be counted in advance) and renders it as SQL.

use super::mix::{Action, Spec};
use super::settings::Settings;
use super::statements::{float_range, increment, insert, int_equality, read, scan, update, Values};
use crate::workload::generators::{Discrete, Uniform};
use crate::workload::op::{Op, TimedOp};
use crate::workload::rng::Rng;
use crate::workload::ycsb::KeySpace;

/// The run phase: `ops` operations, each one statement except read-modify-write (two).
pub(super) struct SqlRun {
    /// Draws the action of each operation, apart from everything else, so the number of
    /// statements can be counted in advance.
    mix_rng: Rng,
    rng: Rng,
    remaining: u64,
    /// The `UPDATE` half of a read-modify-write, emitted after its `SELECT`.
    pending: Option<String>,
    mix: Discrete<Action>,
    keys: KeySpace,
    scan_lengths: Uniform,
    values: Values,
    miss_ratio: f64,
}

impl SqlRun {
    pub(super) fn new(spec: &Spec, s: &Settings, seed: u64) -> Self {
        let expected_new = (s.ops as f64 * spec.mix.share(Action::Insert) * 2.0) as u64;
        let (lo, hi) = spec.scan_lengths;
        SqlRun {
            mix_rng: Rng::derive(seed, "run-mix"),
            rng: Rng::derive(seed, "run"),
            remaining: s.ops,
            pending: None,
            mix: spec.mix.clone(),
            keys: KeySpace::new(
                spec.distribution,
                s.records,
                s.records,
                expected_new,
                (0.2, 0.8),
            ),
            scan_lengths: Uniform::new(lo.max(1), hi.max(lo.max(1))),
            values: spec.values,
            miss_ratio: s.miss_ratio,
        }
    }

    /// How many statements the run will emit.
    pub(super) fn statements(&self) -> u64 {
        if self.mix.share(Action::ReadModifyWrite) == 0.0 {
            return self.remaining;
        }
        let mut rng = self.mix_rng.clone();
        let rmw = (0..self.remaining)
            .filter(|_| self.mix.next(&mut rng) == Action::ReadModifyWrite)
            .count() as u64;
        self.remaining + rmw
    }

    /// The key of a point statement: an existing one, or with probability `miss_ratio` one
    /// below the loaded range, which never exists.
    fn point_key(&mut self) -> u64 {
        if self.miss_ratio > 0.0 && self.rng.next_f64() < self.miss_ratio {
            let (first, _) = self.keys.range();
            return self.rng.below(first);
        }
        self.keys.choose(&mut self.rng)
    }

    fn statement(&mut self, action: Action) -> String {
        match action {
            Action::Read => read(self.point_key()),
            Action::Update => update(self.point_key(), self.values, &mut self.rng),
            Action::ReadModifyWrite => {
                let key = self.point_key();
                self.pending = Some(update(key, self.values, &mut self.rng));
                read(key)
            }
            Action::Insert => insert(self.keys.insert(), self.values, &mut self.rng),
            Action::Scan => {
                let start = self.keys.choose(&mut self.rng);
                let limit = self.scan_lengths.next(&mut self.rng);
                scan(start.saturating_sub(1), limit)
            }
            Action::IntEquality => int_equality(self.values, &mut self.rng),
            Action::FloatRange(dims) => float_range(dims, self.values, &mut self.rng),
            Action::Increment => increment(self.point_key(), &mut self.rng),
        }
    }
}

impl Iterator for SqlRun {
    type Item = TimedOp;

    fn next(&mut self) -> Option<TimedOp> {
        let sql = match self.pending.take() {
            Some(sql) => sql,
            None if self.remaining == 0 => return None,
            None => {
                self.remaining -= 1;
                let action = self.mix.next(&mut self.mix_rng);
                self.statement(action)
            }
        };
        Some(TimedOp {
            op: Op::Sql { sql },
            delay_ns: 0,
            recorded: None,
        })
    }
}

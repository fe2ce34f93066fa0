//! The run phase of a `[sql]` spec: [`RunState`] picks a statement by weight, its keys from
//! the [`KeySpace`], and renders it.

use super::template::{Keys, Template};
use crate::workload::generators::Discrete;
use crate::workload::op::Op;
use crate::workload::rng::Rng;
use crate::workload::ycsb::{Distribution, KeySpace};

/// `hotspot` key choice: 80% of the operations on 20% of the keys (YCSB's defaults).
const HOTSPOT: (f64, f64) = (0.2, 0.8);

/// One checked `[[sql.statement]]`.
pub(super) struct Statement {
    pub(super) weight: f64,
    pub(super) template: Template,
    /// The template as written, for the workload's parameters.
    pub(super) text: String,
}

/// Everything the run phase needs between operations.
pub(super) struct RunState {
    templates: Vec<Template>,
    mix: Option<Discrete<usize>>,
    keys: KeySpace,
    rng: Rng,
}

impl RunState {
    pub(super) fn new(
        statements: Vec<Statement>,
        records: u64,
        operations: u64,
        distribution: Distribution,
        seed: u64,
    ) -> RunState {
        let mix = Discrete::new(statements.iter().enumerate().map(|(i, s)| (s.weight, i)));
        let insert_share: f64 = mix.as_ref().map_or(0.0, |m| {
            (0..statements.len())
                .filter(|&i| statements[i].template.uses_new_key)
                .map(|i| m.share(i))
                .sum()
        });
        // Room for twice the expected inserts, as YCSB sizes its zipfian key space.
        let expected_inserts = (operations as f64 * insert_share * 2.0).ceil() as u64;
        RunState {
            templates: statements.into_iter().map(|s| s.template).collect(),
            mix,
            keys: KeySpace::new(distribution, 0, records, expected_inserts, HOTSPOT),
            rng: Rng::derive(seed, "run"),
        }
    }

    pub(super) fn next_op(&mut self) -> Op {
        let i = self.mix.as_ref().map_or(0, |m| m.next(&mut self.rng));
        let template = &self.templates[i];
        let key = if template.uses_key {
            self.keys.choose(&mut self.rng)
        } else {
            0
        };
        let new_key = if template.uses_new_key {
            self.keys.insert()
        } else {
            0
        };
        Op::Sql {
            sql: template.render(Keys { key, new_key }, &mut self.rng),
        }
    }
}

//! Statements the app sent as text with literals in them, in many versions: each version is a
//! statement of its own to SQLite, compiled anew every time (no statement cache can keep it),
//! where the same statement with bound parameters is compiled once. The candidate sends them
//! with their literals as bound parameters ([`super::variant::bind_literals`]).

use super::shapes::Shapes;
use super::variant::{bind_literals, Edit, Variant};
use super::{Candidate, Kind};
use crate::workload::op::OpKind;
use std::collections::BTreeSet;

/// A shape is a candidate when the app ran it at least this often…
const MIN_COUNT: u64 = 10;
/// … in at least this many different texts.
const MIN_TEXTS: u64 = 2;

/// The candidate, when some shape qualifies.
pub fn propose(shapes: &Shapes) -> Option<Candidate> {
    let chosen: Vec<_> = shapes
        .list
        .iter()
        .filter(|s| {
            s.literals
                && s.count >= MIN_COUNT
                && s.texts >= MIN_TEXTS
                && s.kind != OpKind::Other
                && bind_literals(&s.example).is_some()
        })
        .collect();
    if chosen.is_empty() {
        return None;
    }
    let statements: u64 = chosen.iter().map(|s| s.count).sum();
    let most = chosen.iter().max_by_key(|s| s.count)?;
    Some(Candidate {
        kind: Kind::Statements,
        change: format!(
            "bind parameters in {} statement shape(s) sent with literals",
            chosen.len()
        ),
        why: format!(
            "{statements} statements in {} shape(s) were sent as text with their values in it, each compiled anew (most: `{}`, {}×)",
            chosen.len(),
            super::answers::short(&most.fingerprint),
            most.count
        ),
        sql: chosen
            .iter()
            .map(|s| {
                format!(
                    "-- in the app: prepare once, bind the values: {}",
                    s.fingerprint
                )
            })
            .collect(),
        shapes: Vec::new(),
        variant: Variant {
            edits: vec![Edit::Parameterize {
                shapes: chosen
                    .iter()
                    .map(|s| s.fingerprint.clone())
                    .collect::<BTreeSet<_>>(),
            }],
            options: Vec::new(),
        },
    })
}

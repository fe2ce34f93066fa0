//! What each built-in PocketData workload does ([`Spec`]): its statement mix ([`Action`]s and
//! their shares), how it chooses keys, the value ranges of its rows and its scan lengths —
//! YCSB's core mixes for `pocketdata-a` … `-f`, the IA trace's shares for `-ia`, `-ib`, `-ic`.

use super::statements::Values;
use super::NAMES;
use crate::workload::generators::Discrete;
use crate::workload::ycsb::{self, Distribution};

/// Statement kinds of the run phase.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Action {
    /// `SELECT * … WHERE key = k`
    Read,
    /// Full-row `UPDATE … WHERE key = k`
    Update,
    Insert,
    /// `SELECT * … WHERE key > k ORDER BY key ASC LIMIT n`
    Scan,
    /// `Read` then `Update` of the same key.
    ReadModifyWrite,
    /// Equality on one to three int columns.
    IntEquality,
    /// Range on `DAT_FLT_0` (1) or on `DAT_FLT_0` and `DAT_FLT_1` (2).
    FloatRange(u8),
    /// `UPDATE … SET c = c+1 WHERE key=k` on a numeric column.
    Increment,
}

/// Shares of the original IA trace's 1 800 queries: 722 key-range scans, 745 selects on value
/// columns, 183 `+1` updates and 150 inserts.
const INDEXED_SHARES: [(f64, Action); 3] = [
    (722.0, Action::Scan),
    (183.0, Action::Increment),
    (150.0, Action::Insert),
];
const INDEXED_SELECT_SHARE: f64 = 745.0;

/// What a built-in workload does.
pub(super) struct Spec {
    pub(super) mix: Discrete<Action>,
    pub(super) distribution: Distribution,
    pub(super) values: Values,
    pub(super) scan_lengths: (u64, u64),
}

/// What the built-in workload `name` does; `None` for any other name.
pub(super) fn spec(name: &str) -> Option<Spec> {
    if !NAMES.contains(&name) {
        return None;
    }
    match name.strip_prefix("pocketdata-")? {
        "ia" => indexed_spec(Action::IntEquality),
        "ib" => indexed_spec(Action::FloatRange(1)),
        "ic" => indexed_spec(Action::FloatRange(2)),
        letter => ycsb_spec(&ycsb::builtin_params(letter.chars().next()?)?),
    }
}

fn indexed_spec(select: Action) -> Option<Spec> {
    let shares = INDEXED_SHARES
        .into_iter()
        .chain([(INDEXED_SELECT_SHARE, select)]);
    Some(Spec {
        mix: Discrete::new(shares)?,
        distribution: Distribution::Latest,
        values: Values::Narrow,
        scan_lengths: (1, 100),
    })
}

fn ycsb_spec(p: &ycsb::YcsbParams) -> Option<Spec> {
    Some(Spec {
        mix: Discrete::new([
            (p.read_proportion, Action::Read),
            (p.update_proportion, Action::Update),
            (p.insert_proportion, Action::Insert),
            (p.scan_proportion, Action::Scan),
            (p.read_modify_write_proportion, Action::ReadModifyWrite),
        ])?,
        distribution: p.request_distribution,
        values: Values::Wide,
        scan_lengths: (u64::from(p.min_scan_length), u64::from(p.max_scan_length)),
    })
}

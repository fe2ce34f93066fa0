//! A plan's cells: the cartesian product of its axes less `exclude` rules plus `include`d
//! cells, each a label set and the `run` argument list it stands for; stable identities for
//! cells and plans (what `--resume` matches on); and the order runs are made in.

use super::flags::Suite;
use super::plan::{AxisValue, Order, Plan};
use crate::error::{Error, Result};
use crate::workload::rng::Rng;

/// One configuration of the study.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Cell {
    /// Position in declaration order (0-based).
    pub index: usize,
    /// Stable identity: a hash of the cell's arguments (and of its suite, but `run`).
    pub id: String,
    /// Axis name → value label, in axis order.
    pub labels: Vec<(String, String)>,
    /// The arguments the plan's suite command (`pocketbench run`, …) gets for this cell.
    pub args: Vec<String>,
}

impl Cell {
    /// `workload=ycsb-a delay=zero`
    pub fn name(&self) -> String {
        self.labels
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Expand the plan into its cells and check that its suite command accepts every one.
pub fn expand(plan: &Plan) -> Result<Vec<Cell>> {
    let mut combos: Vec<Vec<(String, AxisValue)>> = vec![Vec::new()];
    for axis in &plan.axes {
        combos = combos
            .into_iter()
            .flat_map(|prefix| {
                axis.values.iter().map(move |v| {
                    let mut c = prefix.clone();
                    c.push((axis.name.clone(), v.clone()));
                    c
                })
            })
            .collect();
    }
    if plan.axes.is_empty() {
        combos.clear();
    }
    combos.retain(|c| !plan.exclude.iter().any(|rule| matches(c, rule)));
    for inc in &plan.include {
        let mut c: Vec<(String, AxisValue)> = plan
            .axes
            .iter()
            .map(|a| {
                let v = inc
                    .iter()
                    .find(|(k, _)| k == &a.name)
                    .map(|(_, v)| v.clone());
                let v = v.unwrap_or(AxisValue {
                    label: "default".into(),
                    args: Vec::new(),
                });
                (a.name.clone(), v)
            })
            .collect();
        c.extend(
            inc.iter()
                .filter(|(k, _)| !plan.axes.iter().any(|a| &a.name == k))
                .cloned(),
        );
        combos.push(c);
    }
    let mut cells: Vec<Cell> = Vec::new();
    for combo in combos {
        let mut args = plan.base.clone();
        for (_, v) in &combo {
            args.extend(v.args.iter().cloned());
        }
        // A run cell's identity is its arguments alone (as before suites existed, so older
        // studies still resume); another suite's cells also hash the suite's name.
        let suite = (plan.suite != Suite::Run).then(|| format!("suite={}", plan.suite.name()));
        let id = hash_hex(
            suite
                .iter()
                .map(String::as_str)
                .chain(args.iter().map(String::as_str)),
        );
        if cells.iter().any(|c| c.id == id) {
            continue;
        }
        let cell = Cell {
            index: cells.len(),
            id,
            labels: combo.into_iter().map(|(k, v)| (k, v.label)).collect(),
            args,
        };
        plan.suite
            .check(&cell.args)
            .map_err(|why| Error::input(format!("{}: cell {}: {why}", plan.source, cell.name())))?;
        cells.push(cell);
    }
    if cells.is_empty() {
        return Err(Error::input(format!(
            "{}: exclude: every cell is excluded; nothing to run",
            plan.source
        )));
    }
    Ok(cells)
}

fn matches(cell: &[(String, AxisValue)], rule: &[(String, AxisValue)]) -> bool {
    rule.iter().all(|(axis, value)| {
        cell.iter()
            .any(|(a, v)| a == axis && v.label == value.label)
    })
}

/// The plan's identity: a hash of its cells' arguments. Changing the repeats, order,
/// cool-down or name keeps the identity (so `--resume` can extend a study with more repeats).
pub fn plan_id(cells: &[Cell]) -> String {
    hash_hex(cells.iter().map(|c| c.id.as_str()))
}

/// Every (cell index, repeat) pair of the study, in the order they are to run.
pub fn schedule(plan: &Plan, cells: &[Cell]) -> Vec<(usize, u32)> {
    let mut out: Vec<(usize, u32)> = (0..plan.repeats)
        .flat_map(|r| (0..cells.len()).map(move |c| (c, r)))
        .collect();
    if plan.order == Order::Random {
        let mut rng = Rng::derive(plan.seed, "matrix order");
        for i in (1..out.len()).rev() {
            let j = rng.below(i as u64 + 1) as usize;
            out.swap(i, j);
        }
    }
    out
}

/// 64-bit FNV-1a over NUL-separated parts, as 16 hex digits.
fn hash_hex<'a>(parts: impl Iterator<Item = &'a str>) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in part.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PLAN: &str = r#"
        repeats = 2
        [run]
        ops = 10
        [axes]
        workload = ["ycsb-a", "ycsb-c"]
        delay = ["zero", "fixed:1ms"]
        option = [["synchronous=off"], ["synchronous=full", "journal_mode=wal"]]
        [[exclude]]
        workload = "ycsb-c"
        delay = "fixed:1ms"
        [[include]]
        workload = "ycsb-b"
        engine = "null"
    "#;

    #[test]
    fn product_less_excluded_plus_included() {
        let plan = Plan::parse(PLAN, "p.toml", "p").unwrap();
        let cells = expand(&plan).unwrap();
        // 2 × 2 × 2 = 8, less 2 excluded, plus 1 included.
        assert_eq!(cells.len(), 7);
        assert_eq!(
            cells[0].args,
            [
                "--ops",
                "10",
                "--workload",
                "ycsb-a",
                "--delay",
                "zero",
                "--option",
                "synchronous=off"
            ]
        );
        assert_eq!(
            cells[1].name(),
            "workload=ycsb-a delay=zero option=synchronous=full,journal_mode=wal"
        );
        let inc = &cells[6];
        assert_eq!(
            inc.name(),
            "workload=ycsb-b delay=default option=default engine=null"
        );
        assert_eq!(
            inc.args,
            ["--ops", "10", "--workload", "ycsb-b", "--engine", "null"]
        );
        // Identities are stable and distinct.
        let again = expand(&plan).unwrap();
        assert_eq!(plan_id(&cells), plan_id(&again));
        let mut ids: Vec<&str> = cells.iter().map(|c| c.id.as_str()).collect();
        ids.dedup();
        assert_eq!(ids.len(), 7);
    }

    #[test]
    fn schedules_round_robin_or_shuffled() {
        let mut plan = Plan::parse(PLAN, "p.toml", "p").unwrap();
        let cells = expand(&plan).unwrap();
        let fixed = schedule(&plan, &cells);
        assert_eq!(fixed.len(), 14);
        assert_eq!(&fixed[..2], &[(0, 0), (1, 0)]);
        assert_eq!(fixed[7], (0, 1));
        plan.order = Order::Random;
        let random = schedule(&plan, &cells);
        assert_ne!(random, fixed);
        assert_eq!(random, schedule(&plan, &cells), "the shuffle is seeded");
        let mut sorted = random.clone();
        sorted.sort_by_key(|&(c, r)| (r, c));
        assert_eq!(sorted, fixed);
    }

    #[test]
    fn bad_plans_name_file_and_field() {
        let err = |text: &str| match Plan::parse(text, "p.toml", "p").and_then(|p| expand(&p)) {
            Err(Error::Input(m)) => m,
            other => panic!("expected bad input, got {other:?}"),
        };
        assert!(
            err("[axes]\nbogus = [1]").starts_with("p.toml: axes.bogus[1]: unknown axis 'bogus'")
        );
        assert!(err("[axes]\nworkload = \"ycsb-a\"").contains("axes.workload: expected a list"));
        assert!(err("[axes]\nresults = [\"x.db\"]").contains("cannot be set in a plan"));
        assert!(err("repeats = 0\n[axes]\nworkload = [\"ycsb-a\"]").contains("p.toml: repeats:"));
        assert!(
            err("[axes]\nworkload = [\"ycsb-a\"]\n[[exclude]]\ndelay = \"zero\"")
                .contains("exclude[1].delay: not an axis")
        );
        assert!(err("[axes]\nwarm = [\"yes\"]").contains("--warm is a switch"));
        assert!(
            err("[axes]\nworkload = [\"ycsb-a\"]\n[run]\nworkload = \"x\"")
                .contains("cannot be used multiple times")
        );
        assert!(err("[axes\n").starts_with("p.toml:1:"));
        assert!(err("wat = 1").contains("p.toml: wat: unknown field"));
    }
}

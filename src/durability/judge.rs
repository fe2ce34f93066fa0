//! What recovery found, judged against the acknowledgements by the rules of the workload: the
//! commits lost, transactions present in part or never attempted, the counter out of step,
//! and **ordering violations** — a commit present while an earlier acknowledged one is absent,
//! which no prefix of the commits explains (a store that keeps its commits in order loses only
//! the newest ones). Every record read back is judged, not only the newest.

use super::{parts, ByTxn, PointResult, Workload, PRELOAD};
use std::collections::{BTreeMap, BTreeSet};

/// The counter a store keeps beside its rows: `Some(Ok(v))` read, `Some(Err(why))` unreadable,
/// `None` where the engine keeps none (the key-value engines: a record is a commit's only trace).
pub type Counter = Option<std::result::Result<u64, String>>;

/// Judge what recovery found against the acknowledgements: `rows` read back and the counter,
/// by the rules of the plan's workload.
pub fn judge(r: &mut PointResult, rows: &ByTxn, counter: Counter, plan: &super::Plan) {
    match plan.workload {
        Workload::Append => judge_append(r, rows, counter, u64::from(plan.rows_per_txn)),
        Workload::Update => judge_update(r, rows, counter, u64::from(plan.rows_per_txn)),
    }
}

/// "transaction 2 (acknowledged) is missing or incomplete while 3 … is present" for the
/// earliest acknowledged transaction lost before a later one present; `None` when none is.
fn ordering(
    r: &PointResult,
    lost: impl Fn(u64) -> bool,
    present: impl Fn(u64) -> bool,
) -> Option<String> {
    let limit = r.in_flight.unwrap_or(0).max(r.acknowledged);
    let newest = (1..=limit).rev().find(|&t| present(t))?;
    let first = (1..newest.min(r.acknowledged + 1)).find(|&t| lost(t))?;
    let count = (1..newest.min(r.acknowledged + 1))
        .filter(|&t| lost(t))
        .count();
    let how = if newest > r.acknowledged {
        "in flight at the failure"
    } else {
        "acknowledged after it"
    };
    Some(format!(
        "transaction {first} (acknowledged) is missing or incomplete while {newest} ({how}) is present; {count} acknowledged transaction(s) missing before {newest}"
    ))
}

/// The update workload: the table must hold exactly one intact row per preloaded part, and as
/// a whole be the table after some transaction `k` — the newest acknowledged one, or the one
/// in flight. An older `k` lost `acknowledged − k` commits; no such `k` is an ordering
/// violation (a transaction's rows present where an earlier acknowledged one's are not) or a
/// partial transaction; rows of transactions never attempted are phantoms.
fn judge_update(r: &mut PointResult, rows: &ByTxn, counter: Counter, rows_per_txn: u64) {
    let mut found: BTreeMap<u64, u64> = BTreeMap::new();
    for (&txn, list) in rows {
        for &(part, intact) in list {
            if !intact || found.insert(part, txn).is_some() {
                r.integrity.get_or_insert(format!(
                    "row (txn {txn}, part {part}) is damaged or doubled"
                ));
            }
        }
    }
    if found.len() as u64 != PRELOAD || found.keys().any(|&p| p >= PRELOAD) {
        r.integrity.get_or_insert(format!(
            "{} rows where the table holds {PRELOAD}",
            found.len()
        ));
    }
    let limit = r.in_flight.unwrap_or(0).max(r.acknowledged);
    r.phantom = rows.keys().filter(|&&t| t > limit).count() as u64;
    // The table after transaction k, for k = 0, 1, …, limit; remember the newest match.
    let mut table: BTreeMap<u64, u64> = (0..PRELOAD).map(|p| (p, 0)).collect();
    let mut matched = (table == found).then_some(0);
    for k in 1..=limit {
        for p in parts(Workload::Update, k, rows_per_txn) {
            table.insert(p, k);
        }
        if table == found {
            matched = Some(k);
        }
    }
    let written = |t: u64| parts(Workload::Update, t, rows_per_txn);
    // Transaction t's rows: some present (a part holds t) and some overwritten by nothing newer
    // (a part older than t).
    let shows = |t: u64| written(t).iter().any(|p| found.get(p) == Some(&t));
    let older = |t: u64| {
        written(t)
            .iter()
            .any(|p| found.get(p).is_none_or(|&w| w < t))
    };
    match matched {
        Some(k) => {
            r.lost = r.acknowledged.saturating_sub(k);
            match counter {
                None => {}
                Some(Ok(v)) if v == k => {}
                Some(Ok(v)) => {
                    r.inconsistent = Some(format!(
                        "counter is {v}, the table is after transaction {k}"
                    ))
                }
                Some(Err(e)) => r.inconsistent = Some(format!("counter unreadable: {e}")),
            }
        }
        None => {
            r.ordering = ordering(r, older, shows);
            let in_part = (1..=limit).any(|t| shows(t) && older(t));
            r.partial = u64::from(r.integrity.is_none() && (in_part || r.ordering.is_none()));
            // Every acknowledged transaction with a row older than its own is lost.
            r.lost = (1..=r.acknowledged).filter(|&t| older(t)).count() as u64;
        }
    }
}

/// The append workload: every record read back. Every acknowledged transaction present with
/// all its rows, none in part, none never attempted, none present while an earlier
/// acknowledged one is absent, the preload intact, the counter (where kept) at the newest
/// present.
fn judge_append(r: &mut PointResult, rows: &ByTxn, counter: Counter, rows_per_txn: u64) {
    let expected = |txn: u64| if txn == 0 { PRELOAD } else { rows_per_txn };
    // Each transaction present is judged whole once: the rules below ask about a transaction
    // several times.
    let intact: BTreeSet<u64> = rows
        .iter()
        .filter(|(&txn, parts)| {
            parts.len() as u64 == expected(txn)
                && parts
                    .iter()
                    .enumerate()
                    .all(|(i, &(p, intact))| p == i as u64 && intact)
        })
        .map(|(&txn, _)| txn)
        .collect();
    let whole = |txn: u64| intact.contains(&txn);
    r.lost = (1..=r.acknowledged).filter(|&t| !whole(t)).count() as u64;
    if !whole(0) && r.integrity.is_none() {
        r.integrity = Some("the rows present before the workload are damaged".into());
    }
    let limit = r.in_flight.unwrap_or(0).max(r.acknowledged);
    for &txn in rows.keys() {
        if txn > limit {
            r.phantom += 1;
        } else if txn > r.acknowledged && !whole(txn) {
            r.partial += 1;
        }
    }
    r.ordering = ordering(r, |t| !whole(t), |t| rows.contains_key(&t));
    let newest = rows.keys().next_back().copied().unwrap_or(0);
    match counter {
        None => {}
        Some(Ok(v)) if v == newest => {}
        Some(Ok(v)) => {
            r.inconsistent = Some(format!("counter is {v}, newest transaction {newest}"))
        }
        Some(Err(e)) => r.inconsistent = Some(format!("counter unreadable: {e}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::durability::{run_config, Plan, Subject};
    use std::path::Path;

    fn acked(n: u64, in_flight: Option<u64>) -> PointResult {
        PointResult {
            acknowledged: n,
            in_flight,
            ..PointResult::default()
        }
    }

    /// Append rows as recovery would find them: each transaction whole.
    fn append_rows(txns: &[u64], rows: u64) -> ByTxn {
        txns.iter()
            .map(|&t| {
                let n = if t == 0 { PRELOAD } else { rows };
                (t, (0..n).map(|p| (p, true)).collect())
            })
            .collect()
    }

    fn plan(workload: Workload) -> Plan {
        Plan {
            txns: 5,
            rows_per_txn: 2,
            workload,
            seed: 1,
            ..Plan::default()
        }
    }

    #[test]
    fn a_lost_prefix_is_loss_and_a_gap_is_an_ordering_violation() {
        let p = plan(Workload::Append);
        // The newest two of four lost: a prefix survived, no ordering violation.
        let mut r = acked(4, Some(5));
        judge(&mut r, &append_rows(&[0, 1, 2], 2), Some(Ok(2)), &p);
        assert_eq!((r.lost, r.ordering.as_deref()), (2, None));
        // 2 lost while 3 survived: every record read, the gap named.
        let mut r = acked(4, Some(5));
        judge(&mut r, &append_rows(&[0, 1, 3], 2), None, &p);
        assert_eq!(r.lost, 2);
        assert_eq!(
            r.ordering.as_deref(),
            Some("transaction 2 (acknowledged) is missing or incomplete while 3 (acknowledged after it) is present; 1 acknowledged transaction(s) missing before 3")
        );
        assert!(r.failed());
        // The transaction in flight kept while an acknowledged one was lost.
        let mut r = acked(3, Some(4));
        judge(&mut r, &append_rows(&[0, 2, 3, 4], 2), None, &p);
        assert_eq!(r.lost, 1);
        assert_eq!(
            r.ordering.as_deref(),
            Some("transaction 1 (acknowledged) is missing or incomplete while 4 (in flight at the failure) is present; 1 acknowledged transaction(s) missing before 4")
        );
        // A store that keeps no counter is not checked against one; one that does still is.
        assert_eq!(r.inconsistent, None);
        let mut r = acked(2, None);
        judge(&mut r, &append_rows(&[0, 1, 2], 2), Some(Ok(1)), &p);
        assert_eq!(
            r.inconsistent.as_deref(),
            Some("counter is 1, newest transaction 2")
        );
    }

    /// The update workload with 2 rows a transaction: 1 rewrites parts 0-1, 2 parts 2-3, 3
    /// parts 4-5. Parts 0-1 at 1, 2-3 still the preload's, 4-5 at 3: no table after any k.
    #[test]
    fn an_update_kept_after_an_earlier_one_lost_is_an_ordering_violation() {
        let p = plan(Workload::Update);
        let owner = |part: u64| match part {
            0 | 1 => 1,
            4 | 5 => 3,
            _ => 0,
        };
        let mut rows = ByTxn::new();
        for part in 0..PRELOAD {
            let t = owner(part);
            rows.entry(t).or_default().push((part, true));
        }
        let mut r = acked(3, Some(4));
        judge(&mut r, &rows, Some(Ok(3)), &p);
        assert_eq!((r.lost, r.partial, r.integrity.as_deref()), (1, 0, None));
        assert_eq!(
            r.ordering.as_deref(),
            Some("transaction 2 (acknowledged) is missing or incomplete while 3 (acknowledged after it) is present; 1 acknowledged transaction(s) missing before 3")
        );
    }

    /// A hand-built recording of what recovery found at each crash point of a five-commit run:
    /// point `p` acknowledged `p - 1` commits and kept the transactions listed.
    struct Recorded(Vec<&'static [u64]>);

    impl Subject for Recorded {
        fn engine(&self) -> &'static str {
            "lmdb"
        }
        fn config(&self) -> Vec<(String, String)> {
            vec![("sync".into(), "nosync".into())]
        }
        fn model(&self, _: bool) -> String {
            "a hand-built recording".into()
        }
        fn prepare(&self, _: &Path) -> crate::error::Result<()> {
            Ok(())
        }
        fn count_events(&self, _: &Path, _: &Plan) -> crate::error::Result<u64> {
            Ok(self.0.len() as u64 - 1)
        }
        fn crash_at(
            &self,
            _: &Path,
            plan: &Plan,
            point: u64,
            _: u64,
        ) -> crate::error::Result<PointResult> {
            let mut r = acked(point - 1, Some(point));
            r.point = point;
            judge(
                &mut r,
                &append_rows(self.0[point as usize - 1], 2),
                None,
                plan,
            );
            Ok(r)
        }
        fn speed(&self, _: &Path, _: &Plan) -> crate::error::Result<f64> {
            Ok(0.0)
        }
    }

    #[test]
    fn ordering_violations_are_counted_apart_with_their_replay() {
        let recording = Recorded(vec![
            &[0],
            &[0, 1],
            &[0, 1],       // 2 acknowledged, 2 lost: the newest only.
            &[0, 1, 3, 4], // 3 acknowledged, 2 lost while 3 and 4 kept.
            &[0, 2, 3, 4],
            &[0, 1, 2, 3, 4, 5],
        ]);
        let mut p = plan(Workload::Append);
        p.crashes = 100;
        let dir = tempfile::tempdir().unwrap();
        let c = run_config(dir.path(), &recording, &p, |_, _| {}).unwrap();
        assert_eq!((c.points, c.crashes), (6, 6));
        assert_eq!(c.crashes_losing_commits, 3);
        assert_eq!(c.ordering_violations, 2);
        assert_eq!(
            c.first_ordering.as_deref(),
            Some("transaction 2 (acknowledged) is missing or incomplete while 4 (in flight at the failure) is present; 1 acknowledged transaction(s) missing before 4 (replay: --engine lmdb --config sync=nosync --txns 5 --rows-per-txn 2 --replay-crash 1:4)")
        );
    }
}

//! Measuring many candidates against one baseline, in rounds: each round replays the baseline
//! once, then every candidate still measured once (their order turned by one each round), so
//! every candidate's replays alternate with baseline replays (B C₁ C₂ … B C₂ C₃ … C₁ …) and
//! `k` candidates cost `repeats × (1 + k)` replays instead of `2 × repeats × k`. A candidate is
//! compared with the baseline replays of the rounds it took part in. The budget decides up front
//! how many candidates, best first, the rounds can carry (at the mean replay time seen so far);
//! when replays grow slower, the last ones are let go at the start of a round, keeping what they
//! measured (an interval needs two replays a side).

use super::measure::{Replay, Side};
use crate::error::Result;

/// What is replayed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Who {
    Baseline,
    Candidate(usize),
}

/// What became of one candidate.
#[derive(Clone, Debug)]
pub enum Outcome {
    /// Its replays and the baseline's of the same rounds.
    Measured { base: Side, var: Side },
    /// Its replay failed (the message).
    Failed(String),
    /// The budget did not cover it: the replays it got (fewer than two).
    Unmeasured { replays: usize },
}

/// Replays in a round-robin schedule with `n` candidates (best first) and `repeats` rounds.
/// `estimate_ns`: the time of one replay before any is seen; `fits(ns)`: whether `ns` more
/// fit the budget; `replay(who)`: one replay (a failed baseline replay ends the measurement).
/// Every baseline replay, and each candidate's outcome.
pub fn measure(
    n: usize,
    repeats: usize,
    estimate_ns: u64,
    fits: impl Fn(u64) -> bool,
    mut replay: impl FnMut(Who) -> Result<Replay>,
) -> Result<(Side, Vec<Outcome>)> {
    let repeats = repeats.max(1);
    let mut seen = (0u64, 0u64); // total wall, count
    let per_replay = |seen: (u64, u64)| seen.0.checked_div(seen.1).unwrap_or(estimate_ns);
    let rest = |rounds: usize, k: usize, each: u64| {
        each.saturating_mul(rounds as u64)
            .saturating_mul(1 + k as u64)
    };
    // Admission: as many as the whole schedule fits.
    let mut admitted = n;
    while admitted > 0 && !fits(rest(repeats, admitted, estimate_ns)) {
        admitted -= 1;
    }
    let mut active: Vec<usize> = (0..admitted).collect();
    let mut base: Vec<Replay> = Vec::new();
    let mut rounds_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut replays: Vec<Vec<Replay>> = vec![Vec::new(); n];
    let mut failed: Vec<Option<String>> = vec![None; n];
    for round in 0..repeats {
        while !active.is_empty() && !fits(rest(repeats - round, active.len(), per_replay(seen))) {
            active.pop();
        }
        if active.is_empty() {
            break;
        }
        let b = replay(Who::Baseline)?;
        seen = (seen.0 + b.wall_ns, seen.1 + 1);
        base.push(b);
        let turn = round % active.len();
        let order: Vec<usize> = active[turn..]
            .iter()
            .chain(&active[..turn])
            .copied()
            .collect();
        for c in order {
            match replay(Who::Candidate(c)) {
                Ok(r) => {
                    seen = (seen.0 + r.wall_ns, seen.1 + 1);
                    replays[c].push(r);
                    rounds_of[c].push(round);
                }
                Err(e) => {
                    failed[c] = Some(e.to_string());
                    active.retain(|&a| a != c);
                }
            }
        }
    }
    let outcomes = (0..n)
        .map(|c| {
            if let Some(why) = failed[c].take() {
                return Outcome::Failed(why);
            }
            let var = std::mem::take(&mut replays[c]);
            if var.len() < 2 {
                return Outcome::Unmeasured { replays: var.len() };
            }
            let base = Side {
                replays: rounds_of[c].iter().map(|&r| base[r].clone()).collect(),
            };
            Outcome::Measured {
                base,
                var: Side { replays: var },
            }
        })
        .collect();
    Ok((Side { replays: base }, outcomes))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    /// A replay taking `ms` milliseconds of wall time and `busy` of busy time.
    fn took(ms: u64, busy: u64) -> Replay {
        Replay {
            wall_ns: ms * 1_000_000,
            busy_ns: busy,
            ..Replay::default()
        }
    }

    fn name(w: Who) -> String {
        match w {
            Who::Baseline => "B".into(),
            Who::Candidate(c) => format!("C{c}"),
        }
    }

    #[test]
    fn every_candidate_alternates_with_the_baseline_and_shares_its_replays() {
        let log = RefCell::new(Vec::new());
        let out = measure(
            3,
            3,
            10_000_000,
            |_| true,
            |w| {
                log.borrow_mut().push(name(w));
                let busy = log.borrow().len() as u64;
                Ok(took(10, busy))
            },
        )
        .unwrap()
        .1;
        // 3 rounds × (1 + 3) replays, not 2 × 3 × 3; the order turns by one each round.
        assert_eq!(log.borrow().join(" "), "B C0 C1 C2 B C1 C2 C0 B C2 C0 C1");
        // C1 was replays 3, 6, 12 (busy = position); its baseline, the rounds' 1, 5, 9.
        let Outcome::Measured { base, var } = &out[1] else {
            panic!("{:?}", out[1])
        };
        assert_eq!(var.values(|r| r.busy_ns), [3, 6, 12]);
        assert_eq!(base.values(|r| r.busy_ns), [1, 5, 9]);
    }

    /// `candidates` over 2 rounds, estimated at 100 ms a replay, with `budget_ms` to spend and
    /// every replay really taking `replay_ms`: the replays in order, and the outcomes.
    fn on_budget(candidates: usize, budget_ms: u64, replay_ms: u64) -> (String, Vec<Outcome>) {
        let spent = RefCell::new(0u64);
        let log = RefCell::new(Vec::new());
        let out = measure(
            candidates,
            2,
            100_000_000,
            |more| *spent.borrow() + more <= budget_ms * 1_000_000,
            |w| {
                log.borrow_mut().push(name(w));
                *spent.borrow_mut() += replay_ms * 1_000_000;
                Ok(took(replay_ms, 1))
            },
        )
        .unwrap()
        .1;
        let log = log.borrow().join(" ");
        (log, out)
    }

    #[test]
    fn the_budget_admits_the_best_candidates_and_lets_the_last_go_when_replays_slow() {
        // 100 ms a replay, 1 000 ms of budget, 2 rounds: 2 × (1 + 4) = 10 replays fit, so 4 of 6.
        let (log, out) = on_budget(6, 1_000, 100);
        assert_eq!(log, "B C0 C1 C2 C3 B C1 C2 C3 C0");
        assert!(matches!(out[3], Outcome::Measured { .. }));
        assert!(matches!(out[4], Outcome::Unmeasured { replays: 0 }));
        assert!(matches!(out[5], Outcome::Unmeasured { replays: 0 }));

        // Replays twice as slow as estimated: after round one (5 × 200 ms of 1 400 spent), the
        // second round fits only the baseline and one candidate (2 × 200 ms), the best.
        let (log, out) = on_budget(4, 1_400, 200);
        assert_eq!(log, "B C0 C1 C2 C3 B C0");
        assert!(matches!(out[0], Outcome::Measured { .. }));
        for late in &out[1..] {
            assert!(
                matches!(late, Outcome::Unmeasured { replays: 1 }),
                "{late:?}"
            );
        }
    }

    #[test]
    fn a_failed_candidate_leaves_the_rounds_and_a_failed_baseline_ends_them() {
        let log = RefCell::new(Vec::new());
        let out = measure(
            2,
            2,
            1,
            |_| true,
            |w| {
                log.borrow_mut().push(name(w));
                match w {
                    Who::Candidate(0) => Err(crate::error::Error::failed("disk full")),
                    _ => Ok(took(1, 1)),
                }
            },
        )
        .unwrap()
        .1;
        assert_eq!(log.borrow().join(" "), "B C0 C1 B C1");
        assert!(matches!(&out[0], Outcome::Failed(m) if m.contains("disk full")));
        assert!(matches!(out[1], Outcome::Measured { .. }));
        let err = measure(
            1,
            2,
            1,
            |_| true,
            |_| -> Result<Replay> { Err(crate::error::Error::failed("no space")) },
        );
        assert!(err.is_err());
    }
}

//! Measuring many candidates against one baseline, in rounds: each round replays the baseline
//! once, then every candidate still measured once (their order turned by one each round), so
//! every candidate's replays alternate with baseline replays (B C₁ C₂ … B C₂ C₃ … C₁ …) and
//! `k` candidates cost `rounds × (1 + k)` replays instead of `2 × rounds × k`. A candidate is
//! compared with the baseline replays of the rounds it took part in.
//!
//! The budget decides up front, at the replay time known then, how many rounds and candidates
//! the schedule carries: every candidate in fewer rounds (down to [`Schedule::min_rounds`])
//! before any candidate is left out, and then the best first. At the start of each round the
//! schedule is fitted again at the mean replay time seen so far: rounds are given up first
//! (down to the minimum), then the last candidates are let go, keeping what they measured (an
//! interval needs two replays a side). `reserve` replays are kept spare for what follows.

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

/// How many rounds to aim for, how few to accept, and how many replays to leave spare.
#[derive(Clone, Copy, Debug)]
pub struct Schedule {
    /// The rounds asked for (`--repeats`).
    pub rounds: usize,
    /// The fewest rounds a candidate is measured in before candidates are left out.
    pub min_rounds: usize,
    /// Replays of the budget kept for what comes after the rounds.
    pub reserve: u64,
}

/// Every baseline replay, each candidate's outcome, and the rounds made.
#[derive(Debug)]
pub struct Measured {
    pub baseline: Side,
    pub outcomes: Vec<Outcome>,
    pub rounds: usize,
}

/// Replays in a round-robin schedule with `n` candidates (best first). `estimate_ns`: the
/// time of one replay before any is seen; `fits(ns)`: whether `ns` more fit the budget;
/// `replay(who)`: one replay (a failed baseline replay ends the measurement).
pub fn measure(
    n: usize,
    schedule: Schedule,
    estimate_ns: u64,
    fits: impl Fn(u64) -> bool,
    mut replay: impl FnMut(Who) -> Result<Replay>,
) -> Result<Measured> {
    let most = schedule.rounds.max(1);
    let least = schedule.min_rounds.clamp(1, most);
    let mut seen = (0u64, 0u64); // total wall, count
    let per_replay = |seen: (u64, u64)| seen.0.checked_div(seen.1).unwrap_or(estimate_ns);
    // The replays of `rounds` more rounds with `k` candidates, and the reserve, fit.
    let fit = |rounds: usize, k: usize, each: u64| {
        let replays = (rounds as u64)
            .saturating_mul(1 + k as u64)
            .saturating_add(schedule.reserve);
        fits(each.saturating_mul(replays))
    };
    // Admission: every candidate in as many rounds as fit, down to the least; then the best.
    let mut planned = most;
    while planned > least && !fit(planned, n, estimate_ns) {
        planned -= 1;
    }
    let mut admitted = n;
    while admitted > 0 && !fit(planned, admitted, estimate_ns) {
        admitted -= 1;
    }
    let mut active: Vec<usize> = (0..admitted).collect();
    let mut base: Vec<Replay> = Vec::new();
    let mut rounds_of: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut replays: Vec<Vec<Replay>> = vec![Vec::new(); n];
    let mut failed: Vec<Option<String>> = vec![None; n];
    let mut round = 0;
    while round < planned {
        let each = per_replay(seen);
        while planned > least.max(round) && !fit(planned - round, active.len(), each) {
            planned -= 1;
        }
        if round >= planned {
            break;
        }
        while !active.is_empty() && !fit(planned - round, active.len(), each) {
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
        round += 1;
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
    Ok(Measured {
        rounds: base.len(),
        baseline: Side { replays: base },
        outcomes,
    })
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

    /// A schedule of `rounds` rounds accepting no fewer, with nothing kept spare.
    fn exactly(rounds: usize) -> Schedule {
        Schedule {
            rounds,
            min_rounds: rounds,
            reserve: 0,
        }
    }

    #[test]
    fn every_candidate_alternates_with_the_baseline_and_shares_its_replays() {
        let log = RefCell::new(Vec::new());
        let got = measure(
            3,
            exactly(3),
            10_000_000,
            |_| true,
            |w| {
                log.borrow_mut().push(name(w));
                let busy = log.borrow().len() as u64;
                Ok(took(10, busy))
            },
        )
        .unwrap();
        // 3 rounds × (1 + 3) replays, not 2 × 3 × 3; the order turns by one each round.
        assert_eq!(log.borrow().join(" "), "B C0 C1 C2 B C1 C2 C0 B C2 C0 C1");
        assert_eq!(got.rounds, 3);
        // C1 was replays 3, 6, 12 (busy = position); its baseline, the rounds' 1, 5, 9.
        let Outcome::Measured { base, var } = &got.outcomes[1] else {
            panic!("{:?}", got.outcomes[1])
        };
        assert_eq!(var.values(|r| r.busy_ns), [3, 6, 12]);
        assert_eq!(base.values(|r| r.busy_ns), [1, 5, 9]);
    }

    /// `candidates` on `schedule`, estimated at 100 ms a replay, with `budget_ms` to spend and
    /// every replay really taking `replay_ms`: the replays in order, and what was measured.
    fn on_budget(
        candidates: usize,
        schedule: Schedule,
        budget_ms: u64,
        replay_ms: u64,
    ) -> (String, Measured) {
        let spent = RefCell::new(0u64);
        let log = RefCell::new(Vec::new());
        let got = measure(
            candidates,
            schedule,
            100_000_000,
            |more| *spent.borrow() + more <= budget_ms * 1_000_000,
            |w| {
                log.borrow_mut().push(name(w));
                *spent.borrow_mut() += replay_ms * 1_000_000;
                Ok(took(replay_ms, 1))
            },
        )
        .unwrap();
        let log = log.borrow().join(" ");
        (log, got)
    }

    fn measured(got: &Measured) -> Vec<usize> {
        let replays = |o: &Outcome| match o {
            Outcome::Measured { var, .. } => var.replays.len(),
            _ => 0,
        };
        got.outcomes.iter().map(replays).collect()
    }

    #[test]
    fn the_budget_admits_the_best_candidates_and_lets_the_last_go_when_replays_slow() {
        // 100 ms a replay, 1 000 ms of budget, 2 rounds: 2 × (1 + 4) = 10 replays fit, so 4 of 6.
        let (log, got) = on_budget(6, exactly(2), 1_000, 100);
        assert_eq!(log, "B C0 C1 C2 C3 B C1 C2 C3 C0");
        assert_eq!(measured(&got), [2, 2, 2, 2, 0, 0]);
        assert!(matches!(
            got.outcomes[4],
            Outcome::Unmeasured { replays: 0 }
        ));

        // Replays twice as slow as estimated: after round one (5 × 200 ms of 1 400 spent), the
        // second round fits only the baseline and one candidate (2 × 200 ms), the best.
        let (log, got) = on_budget(4, exactly(2), 1_400, 200);
        assert_eq!(log, "B C0 C1 C2 C3 B C0");
        assert_eq!(measured(&got), [2, 0, 0, 0]);
        for late in &got.outcomes[1..] {
            assert!(
                matches!(late, Outcome::Unmeasured { replays: 1 }),
                "{late:?}"
            );
        }
    }

    #[test]
    fn rounds_are_given_up_before_candidates_down_to_the_least_and_the_reserve_is_kept() {
        let up_to = |rounds, min_rounds, reserve| Schedule {
            rounds,
            min_rounds,
            reserve,
        };
        // 4 candidates, 5 rounds asked, 3 accepted, 100 ms a replay. 2 000 ms: 5 rounds would
        // be 25 replays (2 500 ms); 4 rounds are 20 (2 000 ms) and fit, all four candidates.
        let (_, got) = on_budget(4, up_to(5, 3, 0), 2_000, 100);
        assert_eq!((got.rounds, measured(&got)), (4, vec![4, 4, 4, 4]));
        // Keeping 5 replays spare: 4 rounds would be 25 in all; 3 rounds are 20.
        let (_, got) = on_budget(4, up_to(5, 3, 5), 2_000, 100);
        assert_eq!((got.rounds, measured(&got)), (3, vec![3, 3, 3, 3]));
        // 1 200 ms: not even 3 rounds of all four (15 replays); 3 rounds of the best three (12).
        let (_, got) = on_budget(4, up_to(5, 3, 0), 1_200, 100);
        assert_eq!((got.rounds, measured(&got)), (3, vec![3, 3, 3, 0]));

        // Planned at 100 ms, replays take 200: 3 rounds of all four (1 500 ms) were admitted
        // into 2 400; after round one (1 000 ms spent) two more (2 000) no longer fit, one more
        // (1 000) does, so the rounds end at two with every candidate measured twice.
        let (log, got) = on_budget(4, up_to(3, 2, 0), 2_400, 200);
        assert_eq!(log, "B C0 C1 C2 C3 B C1 C2 C3 C0");
        assert_eq!((got.rounds, measured(&got)), (2, vec![2, 2, 2, 2]));
    }

    #[test]
    fn a_failed_candidate_leaves_the_rounds_and_a_failed_baseline_ends_them() {
        let log = RefCell::new(Vec::new());
        let got = measure(
            2,
            exactly(2),
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
        .unwrap();
        assert_eq!(log.borrow().join(" "), "B C0 C1 B C1");
        assert!(matches!(&got.outcomes[0], Outcome::Failed(m) if m.contains("disk full")));
        assert!(matches!(got.outcomes[1], Outcome::Measured { .. }));
        let err = measure(
            1,
            exactly(2),
            1,
            |_| true,
            |_| -> Result<Replay> { Err(crate::error::Error::failed("no space")) },
        );
        assert!(err.is_err());
    }
}

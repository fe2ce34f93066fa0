//! The pacer decides when each operation is due and sleeps until then.
//!
//! * `think` (default, the PocketData model): after operation i completes, wait d_i.
//! * `open` (YCSB `-target`, sysbench `--rate`): operation i is due at t0 + Σ d_j for j < i,
//!   whenever the previous one finished; an operation that starts late is counted against the
//!   schedule (response time = end − intended start), so coordinated omission is never hidden.
//!
//! Sleeps are real (absolute-deadline `clock_nanosleep`); each records what was asked of the
//! kernel and what it delivered.

use crate::platform::clock::{mono_ns, sleep_until};
use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Pacing {
    /// Sleep the delay after each operation completes.
    Think,
    /// Operations are due on a fixed schedule; latency is also reported from the intended
    /// start.
    Open,
}

impl Pacing {
    pub fn name(self) -> &'static str {
        match self {
            Pacing::Think => "think",
            Pacing::Open => "open",
        }
    }
}

/// The outcome of waiting for one operation's turn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Wait {
    /// When the operation was due.
    pub intended_ns: u64,
    /// How long the sleep was asked to last (0 when the operation was already due).
    pub requested_ns: u64,
    /// How long the sleep really lasted.
    pub actual_ns: u64,
}

pub struct Pacer {
    pacing: Pacing,
    next_due_ns: u64,
    /// The latest clock reading known (the last operation's end): a due time at or before it
    /// has passed without reading the clock again (back-to-back operations).
    passed_ns: u64,
}

impl Pacer {
    /// Start pacing now; the first operation is due after `initial_delay_ns`.
    pub fn start(pacing: Pacing, now_ns: u64, initial_delay_ns: u64) -> Self {
        Pacer {
            pacing,
            next_due_ns: now_ns + initial_delay_ns,
            passed_ns: now_ns,
        }
    }

    /// Sleep until the next operation is due.
    pub fn wait(&mut self) -> Wait {
        let due = self.next_due_ns;
        if due <= self.passed_ns {
            return Wait {
                intended_ns: due,
                requested_ns: 0,
                actual_ns: 0,
            };
        }
        let before = mono_ns();
        if due <= before {
            return Wait {
                intended_ns: due,
                requested_ns: 0,
                actual_ns: 0,
            };
        }
        sleep_until(due);
        let after = mono_ns();
        Wait {
            intended_ns: due,
            requested_ns: due - before,
            actual_ns: after - before,
        }
    }

    /// Record that the operation ended at `end_ns` and is followed by `delay_ns`.
    pub fn completed(&mut self, end_ns: u64, delay_ns: u64) {
        self.passed_ns = end_ns;
        self.next_due_ns = match self.pacing {
            Pacing::Think => end_ns + delay_ns,
            Pacing::Open => self.next_due_ns + delay_ns,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn think_waits_after_completion_open_keeps_the_schedule() {
        let mut think = Pacer::start(Pacing::Think, 1_000, 0);
        think.completed(5_000, 100);
        assert_eq!(think.next_due_ns, 5_100);
        let mut open = Pacer::start(Pacing::Open, 1_000, 0);
        open.completed(5_000, 100);
        assert_eq!(
            open.next_due_ns, 1_100,
            "open pacing ignores completion time"
        );
    }

    #[test]
    fn a_late_operation_does_not_sleep() {
        let mut p = Pacer::start(Pacing::Open, 0, 0);
        let w = p.wait();
        assert_eq!((w.requested_ns, w.actual_ns), (0, 0));
    }

    #[test]
    fn a_due_operation_sleeps_until_its_deadline() {
        let now = mono_ns();
        let mut p = Pacer::start(Pacing::Think, now, 2_000_000);
        let w = p.wait();
        assert_eq!(w.intended_ns, now + 2_000_000);
        assert!(w.actual_ns >= w.requested_ns);
        assert!(mono_ns() >= now + 2_000_000);
    }

    #[test]
    fn back_to_back_operations_are_due_at_the_previous_end() {
        // Think pacing with no delay: due when the last operation ended, which has passed.
        let mut p = Pacer::start(Pacing::Think, 1_000, 0);
        p.completed(5_000, 0);
        assert_eq!(
            p.wait(),
            Wait {
                intended_ns: 5_000,
                requested_ns: 0,
                actual_ns: 0
            }
        );
        // Open pacing with no delays: every operation is due at the start.
        let mut o = Pacer::start(Pacing::Open, 1_000, 0);
        o.completed(5_000, 0);
        assert_eq!(o.wait().intended_ns, 1_000);
    }
}

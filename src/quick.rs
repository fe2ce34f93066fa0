//! Quick mode: `POCKETBENCH_QUICK=1` in the environment makes every measuring command a short
//! look instead of a measurement, so that each documented example runs in seconds on any
//! machine (the examples test runs them this way) while the command a user pastes stays the
//! one the docs show. This module owns the switch, the caps it applies and the one notice per
//! cap on stderr; `commands::quick` applies the caps to command-line flags and
//! `workload::resolve` to a workload's own sizes and recorded delays.
//!
//! What quick mode changes is always said (`quick mode (POCKETBENCH_QUICK): --ops 1800 → 100`),
//! and the figures it produces describe the shortened run only: they are stored with the sizes
//! actually run and, for a workload, `workload.params.quick` naming the sizes asked, so nothing
//! passes them off as the full-size run. What the full size would be refused for (a limit, too
//! little free space) is refused in quick mode too.

use std::collections::BTreeSet;
use std::sync::Mutex;

/// The environment variable that turns quick mode on (any value but empty or `0`).
pub const ENV: &str = "POCKETBENCH_QUICK";

/// Operations of a run phase, and records of a load phase, at most.
pub const OPS: u64 = 100;
/// Records of a load phase at most.
pub const RECORDS: u64 = 100;
/// A recorded or modelled delay between operations, at most (nanoseconds).
pub const DELAY_NS: u64 = 1_000_000;
/// Repeats of a study's cell or of a governor: two, the fewest that give an interval and a
/// significance test.
pub const REPEATS: u32 = 2;
/// Repetitions of each storage test.
pub const RUNS: u32 = 1;
/// File size of a storage test (bytes).
pub const FILE_BYTES: u64 = 1 << 20;
/// Random calls per storage thread, and transactions per phase of a transaction suite.
pub const CALLS: u64 = 100;
/// Transactions per storage suite phase.
pub const TXNS: u64 = 20;
/// Power failures per durability configuration.
pub const CRASHES: u64 = 5;
/// Durability workload transactions.
pub const DURABILITY_TXNS: u64 = 20;
/// Requests per flashbench cell.
pub const COUNT: u64 = 200;
/// People per data-model scale.
pub const TUPLES: u32 = 100;
/// Time one data-model test may take (nanoseconds).
pub const BUDGET_NS: u64 = 1_000_000_000;
/// `advise`'s whole budget (nanoseconds).
pub const ADVISE_BUDGET_NS: u64 = 20_000_000_000;
/// Length of a device capture (nanoseconds).
pub const CAPTURE_NS: u64 = 2_000_000_000;

/// Whether quick mode is on.
pub fn active() -> bool {
    std::env::var_os(ENV).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Say once (per process and text) that quick mode shortened `what` from `from` to `to`.
pub fn note(what: &str, from: &str, to: &str) {
    static SAID: Mutex<BTreeSet<String>> = Mutex::new(BTreeSet::new());
    let line = format!("{what} {from} → {to}");
    let fresh = SAID
        .lock()
        .map(|mut said| said.insert(line.clone()))
        .unwrap_or(false);
    if fresh {
        eprintln!("quick mode ({ENV}): {line}");
    }
}

/// `value` capped at `cap` in quick mode (said when it changes), else `value`.
pub fn cap<T: PartialOrd + Copy + std::fmt::Display>(what: &str, value: T, cap: T) -> T {
    if active() && value > cap {
        note(what, &value.to_string(), &cap.to_string());
        cap
    } else {
        value
    }
}

/// Values of a list flag (a grid axis, scales) in quick mode: those at most `cap`, the first
/// `len` of them, or `[cap]` when none is that small; said when it changes.
pub fn cap_list<T: PartialOrd + Copy + std::fmt::Display>(
    what: &str,
    list: Vec<T>,
    cap: T,
    len: usize,
) -> Vec<T> {
    if !active() {
        return list;
    }
    let mut kept: Vec<T> = list
        .iter()
        .copied()
        .filter(|v| *v <= cap)
        .take(len)
        .collect();
    if kept.is_empty() {
        kept.push(cap);
    }
    if kept.len() != list.len() {
        let show = |l: &[T]| {
            l.iter()
                .map(|v| v.to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        note(what, &show(&list), &show(&kept));
    }
    kept
}

/// A duration flag given as `text` (`ns` once parsed) capped at `cap_ns` in quick mode.
pub fn cap_duration(what: &str, text: &str, ns: u64, cap_ns: u64) -> u64 {
    if active() && ns > cap_ns {
        note(what, text, &format!("{}ms", cap_ns / 1_000_000));
        cap_ns
    } else {
        ns
    }
}

//! `advise --budget`: reading the flag, and the clock every step of the run asks whether
//! what it is about to spend still fits.

use crate::error::{Error, Result};
use crate::platform::clock::mono_ns;

/// The longest `--budget` (docs/limits.md): a week.
pub const MAX_BUDGET_NS: u64 = 7 * 24 * 3_600 * 1_000_000_000;

/// `--budget`: a duration as `run --delay` takes one (`500ms`, `90s`), or whole or decimal
/// minutes (`10m`) or hours (`1h`); more than 0 and at most a week.
pub fn parse_budget(text: &str) -> Result<u64> {
    let t = text.trim();
    let scaled = |number: &str, unit_ns: u64| -> Result<u64> {
        let secs = crate::output::units::parse_duration(&format!("{number}s"), "--budget")
            .map_err(|_| bad_budget(text, "expected a number before the unit"))?;
        secs.checked_mul(unit_ns / 1_000_000_000)
            .ok_or_else(|| bad_budget(text, "too large"))
    };
    let ns = if let Some(n) = t.strip_suffix('h') {
        scaled(n, 3_600_000_000_000)?
    } else if let Some(n) = t.strip_suffix("min").or_else(|| {
        t.strip_suffix('m')
            .filter(|n| !n.ends_with(|c: char| c.is_ascii_alphabetic()))
    }) {
        scaled(n, 60_000_000_000)?
    } else {
        crate::output::units::parse_duration(t, "--budget")
            .map_err(|_| bad_budget(text, "expected e.g. 90s, 10m or 1h"))?
    };
    if ns == 0 {
        return Err(bad_budget(text, "must be more than 0"));
    }
    if ns > MAX_BUDGET_NS {
        return Err(bad_budget(text, "at most a week (168h)"));
    }
    Ok(ns)
}

fn bad_budget(text: &str, why: &str) -> Error {
    Error::input(format!("--budget {}: {why}", crate::limits::escape(text)))
}

/// Budget bookkeeping: started when the run starts.
pub struct Clock {
    start: u64,
    budget: u64,
}

impl Clock {
    pub fn start(budget: u64) -> Clock {
        Clock {
            start: mono_ns(),
            budget,
        }
    }
    pub fn elapsed(&self) -> u64 {
        mono_ns() - self.start
    }
    pub fn fits(&self, more: u64) -> bool {
        self.elapsed().saturating_add(more) <= self.budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budgets_read_seconds_minutes_and_hours() {
        assert_eq!(parse_budget("90s").unwrap(), 90_000_000_000);
        assert_eq!(parse_budget("10m").unwrap(), 600_000_000_000);
        assert_eq!(parse_budget("1.5m").unwrap(), 90_000_000_000);
        assert_eq!(parse_budget("2min").unwrap(), 120_000_000_000);
        assert_eq!(parse_budget("1h").unwrap(), 3_600_000_000_000);
        assert_eq!(parse_budget("500ms").unwrap(), 500_000_000);
        for bad in ["", "0", "ten", "-1m", "10", "200h", "m", "1e9h"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
    }
}

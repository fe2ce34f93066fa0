//! What `--governor` asks for, and what it means for each policy: a governor by name
//! (`performance`, `powersave`, `ondemand`, `conservative`, `schedutil`, `interactive`, or any
//! other the kernel offers), `userspace:FREQ` (a fixed frequency: `1200000` kHz as sysfs
//! writes it, `1.2GHz`, `1200MHz`, `min`, `max`), or `fixed:50%` (PocketData's "Fixed-50": the
//! available frequency nearest 50% of each policy's maximum).

use super::Policy;
use serde::{Deserialize, Serialize};

/// Governors mainline Linux and common Android kernels ship. Where cpufreq exists, the names a
/// policy offers are what counts; where it does not, a name outside this list is refused as a
/// typo rather than recorded as "observed".
pub const KNOWN_GOVERNORS: [&str; 9] = [
    "performance",
    "powersave",
    "userspace",
    "ondemand",
    "conservative",
    "schedutil",
    "interactive",
    "sched",
    "walt",
];

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum GovernorRequest {
    /// A governor by name, left to choose frequencies itself.
    Named(String),
    /// The userspace governor at a fixed frequency.
    Userspace(FreqSpec),
    /// A fixed frequency at this percentage of each policy's maximum.
    Fixed(f64),
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum FreqSpec {
    Khz(u64),
    Min,
    Max,
}

impl GovernorRequest {
    /// Parse the text of `--governor`; the error names what is wrong with it.
    pub fn parse(text: &str) -> Result<GovernorRequest, String> {
        let t = text.trim();
        if let Some(f) = t.strip_prefix("userspace:") {
            return FreqSpec::parse(f).map(GovernorRequest::Userspace);
        }
        if let Some(p) = t.strip_prefix("fixed:") {
            let num = p.strip_suffix('%').unwrap_or(p).trim();
            return match num.parse::<f64>() {
                Ok(v) if v > 0.0 && v <= 100.0 => Ok(GovernorRequest::Fixed(v)),
                _ => Err(format!(
                    "`{p}` is not a percentage between 0 and 100 (e.g. fixed:50%)"
                )),
            };
        }
        let valid = !t.is_empty()
            && t.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
        if !valid {
            return Err(format!(
                "`{t}` is not a governor name (performance, powersave, ondemand, conservative, \
                 schedutil, interactive, userspace:FREQ or fixed:PERCENT%)"
            ));
        }
        Ok(GovernorRequest::Named(t.to_string()))
    }

    /// The governor this request writes to `scaling_governor`.
    pub fn governor(&self) -> &str {
        match self {
            GovernorRequest::Named(n) => n,
            GovernorRequest::Userspace(_) | GovernorRequest::Fixed(_) => "userspace",
        }
    }

    /// The fixed frequency this request sets on `policy`, if it sets one.
    pub fn target_khz(&self, policy: &Policy) -> Option<u64> {
        let (lo, hi) = bounds(policy)?;
        let want = match self {
            GovernorRequest::Named(_) => return None,
            GovernorRequest::Userspace(FreqSpec::Min) => lo,
            GovernorRequest::Userspace(FreqSpec::Max) => hi,
            GovernorRequest::Userspace(FreqSpec::Khz(k)) => *k,
            GovernorRequest::Fixed(pct) => (hi as f64 * pct / 100.0).round() as u64,
        };
        Some(nearest(&policy.available_khz, want).unwrap_or_else(|| want.clamp(lo, hi)))
    }

    /// Canonical text (`schedutil`, `userspace:1200000`, `fixed:50%`).
    pub fn label(&self) -> String {
        match self {
            GovernorRequest::Named(n) => n.clone(),
            GovernorRequest::Userspace(FreqSpec::Khz(k)) => format!("userspace:{k}"),
            GovernorRequest::Userspace(FreqSpec::Min) => "userspace:min".into(),
            GovernorRequest::Userspace(FreqSpec::Max) => "userspace:max".into(),
            GovernorRequest::Fixed(p) => format!("fixed:{p}%"),
        }
    }
}

impl FreqSpec {
    /// `1200000` (kHz, as sysfs), `1200000kHz`, `1200MHz`, `1.2GHz`, `min`, `max`.
    pub fn parse(text: &str) -> Result<FreqSpec, String> {
        let t = text.trim().to_ascii_lowercase();
        match t.as_str() {
            "min" => return Ok(FreqSpec::Min),
            "max" => return Ok(FreqSpec::Max),
            _ => {}
        }
        let (num, scale) = if let Some(n) = t.strip_suffix("ghz") {
            (n, 1e6)
        } else if let Some(n) = t.strip_suffix("mhz") {
            (n, 1e3)
        } else if let Some(n) = t.strip_suffix("khz") {
            (n, 1.0)
        } else {
            (t.as_str(), 1.0)
        };
        match num.trim().parse::<f64>() {
            Ok(v) if v > 0.0 && v.is_finite() => Ok(FreqSpec::Khz((v * scale).round() as u64)),
            _ => Err(format!(
                "`{text}` is not a frequency (kHz like 1200000, or 1200MHz, 1.2GHz, min, max)"
            )),
        }
    }
}

/// Lowest and highest frequency the policy can run at.
fn bounds(p: &Policy) -> Option<(u64, u64)> {
    let lo = p
        .cpuinfo_min_khz
        .or(p.available_khz.first().copied())
        .or(p.scaling_min_khz)?;
    let hi = p
        .cpuinfo_max_khz
        .or(p.available_khz.last().copied())
        .or(p.scaling_max_khz)?;
    Some((lo, hi.max(lo)))
}

/// The listed frequency closest to `want` (the lower one on a tie).
fn nearest(list: &[u64], want: u64) -> Option<u64> {
    list.iter().copied().min_by_key(|&f| (f.abs_diff(want), f))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::cpufreq::discover;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn parses_every_form() {
        use GovernorRequest::*;
        assert_eq!(
            GovernorRequest::parse("performance"),
            Ok(Named("performance".into()))
        );
        assert_eq!(
            GovernorRequest::parse("userspace:1.2GHz"),
            Ok(Userspace(FreqSpec::Khz(1_200_000)))
        );
        assert_eq!(
            GovernorRequest::parse("userspace:600MHz"),
            Ok(Userspace(FreqSpec::Khz(600_000)))
        );
        assert_eq!(
            GovernorRequest::parse("userspace:max"),
            Ok(Userspace(FreqSpec::Max))
        );
        assert_eq!(GovernorRequest::parse("fixed:50%"), Ok(Fixed(50.0)));
        assert_eq!(
            GovernorRequest::parse("fixed:50%").unwrap().label(),
            "fixed:50%"
        );
        assert!(GovernorRequest::parse("fixed:0%").is_err());
        assert!(GovernorRequest::parse("fixed:150").is_err());
        assert!(GovernorRequest::parse("userspace:fast").is_err());
        assert!(GovernorRequest::parse("Perf ormance").is_err());
        assert_eq!(
            GovernorRequest::parse("fixed:50%").unwrap().governor(),
            "userspace"
        );
    }

    #[test]
    fn fixed_frequencies_per_cluster() {
        let t = Tree::big_little();
        let cf = discover(t.root());
        let (little, big) = (&cf.policies[0], &cf.policies[1]);
        let half = GovernorRequest::Fixed(50.0);
        // 50% of 1.8 GHz = 900 MHz (listed); 50% of 2.4 GHz = 1.2 GHz → nearest 1.5 GHz.
        assert_eq!(half.target_khz(little), Some(900_000));
        assert_eq!(half.target_khz(big), Some(1_500_000));
        let abs = GovernorRequest::Userspace(FreqSpec::Khz(1_000_000));
        assert_eq!(abs.target_khz(little), Some(900_000));
        assert_eq!(abs.target_khz(big), Some(600_000));
        assert_eq!(
            GovernorRequest::Userspace(FreqSpec::Max).target_khz(big),
            Some(2_400_000)
        );
        assert_eq!(
            GovernorRequest::Named("performance".into()).target_khz(big),
            None
        );
    }
}

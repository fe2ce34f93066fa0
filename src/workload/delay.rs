//! Delay models: the think time (or inter-arrival gap) that follows each run-phase operation.
//!
//! A [`DelayModel`] is parsed from a short text (`zero`, `fixed:1ms`, `lognormal:6.67ms`,
//! `lognormal:6.67ms:0.5`, `exponential:5ms`, `pocketdata-ramp`, `recorded`) and prints back
//! the same canonical text. A [`DelaySampler`] turns a model and a seed into the delay after
//! each operation, in integer nanoseconds, from its own random stream (`Rng::derive(seed,
//! "delay")`) so that changing the delay model never changes the operations. Durations are
//! parsed with exact decimal arithmetic ([`parse_duration`]) and printed with
//! [`format_duration`]. The user-facing description is in `docs/workload-spec.md`.

use crate::error::{Error, Result};
use crate::output::units::{format_duration, parse_duration};
use crate::workload::rng::Rng;
use std::fmt;
use std::str::FromStr;

/// The PocketData study's default think time.
pub const DEFAULT: &str = "lognormal:6.67ms";

/// Shape parameter of `lognormal:MEAN` when none is given.
pub const DEFAULT_SIGMA: f64 = 1.0;

/// Largest accepted lognormal sigma: beyond it the mean is dominated by a handful of
/// astronomically long sleeps and no run of realistic length would reach it.
pub const MAX_SIGMA: f64 = 4.0;

const MODEL_SYNTAX: &str =
    "expected zero, fixed:DUR, lognormal:MEAN[:SIGMA], exponential:MEAN, pocketdata-ramp or recorded";

/// How long to wait after each run-phase operation.
#[derive(Clone, Debug, PartialEq)]
pub enum DelayModel {
    /// No delay: back-to-back operations (saturation).
    Zero,
    /// The same delay after every operation, in nanoseconds.
    Fixed(u64),
    /// Lognormal think times with arithmetic mean `mean_ns` and shape `sigma` (the standard
    /// deviation of the underlying normal).
    LogNormal { mean_ns: u64, sigma: f64 },
    /// Exponential gaps with mean `mean_ns`: Poisson arrivals.
    Exponential { mean_ns: u64 },
    /// The original PocketData study's deterministic ramp: round(ln i) ms after operation i.
    PocketDataRamp,
    /// The delays recorded in the workload itself (PocketData JSON `break` items, a trace).
    Recorded,
}

impl Default for DelayModel {
    /// The PocketData default think time, [`DEFAULT`].
    fn default() -> Self {
        DelayModel::LogNormal {
            mean_ns: 6_670_000,
            sigma: DEFAULT_SIGMA,
        }
    }
}

impl DelayModel {
    /// Parse a delay model; errors name the `--delay` flag.
    pub fn parse(text: &str) -> Result<Self> {
        Self::parse_as(text, "--delay")
    }

    /// Parse a delay model; errors are prefixed with `what` (a flag, or a file and field).
    pub fn parse_as(text: &str, what: &str) -> Result<Self> {
        let t = text.trim();
        let (kind, args) = t.split_once(':').unwrap_or((t, ""));
        let no_args = |model: DelayModel| {
            if args.is_empty() && !t.ends_with(':') {
                Ok(model)
            } else {
                Err(Error::input(format!("{what}: '{kind}' takes no argument")))
            }
        };
        match kind {
            "zero" => no_args(DelayModel::Zero),
            "pocketdata-ramp" => no_args(DelayModel::PocketDataRamp),
            "recorded" => no_args(DelayModel::Recorded),
            "fixed" => Ok(DelayModel::Fixed(parse_duration(args, what)?)),
            "exponential" => Ok(DelayModel::Exponential {
                mean_ns: positive_mean(args, what)?,
            }),
            "lognormal" => {
                let (mean, sigma) = match args.split_once(':') {
                    Some((mean, sigma)) => (mean, parse_sigma(sigma, what)?),
                    None => (args, DEFAULT_SIGMA),
                };
                Ok(DelayModel::LogNormal {
                    mean_ns: positive_mean(mean, what)?,
                    sigma,
                })
            }
            _ => Err(Error::input(format!(
                "{what}: unknown delay model '{t}' ({MODEL_SYNTAX})"
            ))),
        }
    }

    /// A sampler for this model, or `None` for [`DelayModel::Recorded`], whose delays come
    /// from the workload rather than from a model.
    pub fn sampler(&self, seed: u64) -> Option<DelaySampler> {
        let law = match *self {
            DelayModel::Zero => Law::Fixed(0),
            DelayModel::Fixed(ns) => Law::Fixed(ns),
            DelayModel::LogNormal { mean_ns, sigma } => Law::LogNormal {
                mu: (mean_ns as f64).ln() - sigma * sigma / 2.0,
                sigma,
            },
            DelayModel::Exponential { mean_ns } => Law::Exponential {
                mean: mean_ns as f64,
            },
            DelayModel::PocketDataRamp => Law::Ramp,
            DelayModel::Recorded => return None,
        };
        Some(DelaySampler {
            law,
            rng: Rng::derive(seed, "delay"),
        })
    }
}

fn positive_mean(text: &str, what: &str) -> Result<u64> {
    match parse_duration(text, what)? {
        0 => Err(Error::input(format!(
            "{what}: the mean delay must be greater than 0 (use 'zero' for no delay)"
        ))),
        ns => Ok(ns),
    }
}

fn parse_sigma(text: &str, what: &str) -> Result<f64> {
    match text.trim().parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= MAX_SIGMA => Ok(s),
        _ => Err(Error::input(format!(
            "{what}: invalid lognormal sigma '{text}' (expected a number greater than 0 and at most {MAX_SIGMA})"
        ))),
    }
}

impl fmt::Display for DelayModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            DelayModel::Zero => f.write_str("zero"),
            DelayModel::Fixed(ns) => write!(f, "fixed:{}", format_duration(ns)),
            DelayModel::LogNormal { mean_ns, sigma } if sigma == DEFAULT_SIGMA => {
                write!(f, "lognormal:{}", format_duration(mean_ns))
            }
            DelayModel::LogNormal { mean_ns, sigma } => {
                write!(f, "lognormal:{}:{sigma}", format_duration(mean_ns))
            }
            DelayModel::Exponential { mean_ns } => {
                write!(f, "exponential:{}", format_duration(mean_ns))
            }
            DelayModel::PocketDataRamp => f.write_str("pocketdata-ramp"),
            DelayModel::Recorded => f.write_str("recorded"),
        }
    }
}

impl FromStr for DelayModel {
    type Err = Error;

    fn from_str(s: &str) -> Result<Self> {
        DelayModel::parse(s)
    }
}

/// The distribution a sampler draws from, with its parameters precomputed.
#[derive(Clone, Debug)]
enum Law {
    Fixed(u64),
    LogNormal { mu: f64, sigma: f64 },
    Exponential { mean: f64 },
    Ramp,
}

/// Draws the delay after each run-phase operation; deterministic for a model and seed.
#[derive(Clone, Debug)]
pub struct DelaySampler {
    law: Law,
    rng: Rng,
}

impl DelaySampler {
    /// Every delay it draws is zero (back-to-back operations).
    pub fn is_zero(&self) -> bool {
        matches!(self.law, Law::Fixed(0))
    }

    /// The delay (ns) that follows operation `index` (0-based). Random models ignore `index`
    /// and must be called once per operation, in order.
    pub fn next(&mut self, index: u64) -> u64 {
        match self.law {
            Law::Fixed(ns) => ns,
            Law::LogNormal { mu, sigma } => to_ns((mu + sigma * self.rng.next_normal()).exp()),
            // 1 - u lies in (0, 1], so the logarithm is finite.
            Law::Exponential { mean } => to_ns(-mean * (1.0 - self.rng.next_f64()).ln()),
            Law::Ramp => ramp_ms(index.saturating_add(1)) * 1_000_000,
        }
    }
}

/// Round a non-negative sample to whole nanoseconds (saturating at `u64::MAX`).
fn to_ns(x: f64) -> u64 {
    x.round() as u64
}

/// The PocketData ramp: round(ln i) milliseconds after the i-th (1-based) operation.
fn ramp_ms(i: u64) -> u64 {
    (i.max(1) as f64).ln().round() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input_message(r: Result<impl fmt::Debug>) -> String {
        match r {
            Err(Error::Input(m)) => m,
            other => panic!("expected a bad-input error, got {other:?}"),
        }
    }

    #[test]
    fn durations_parse_exactly() {
        let cases = [
            ("250ns", 250),
            ("500us", 500_000),
            ("500µs", 500_000),
            ("1ms", 1_000_000),
            ("6.67ms", 6_670_000),
            ("2s", 2_000_000_000),
            ("0.5ns", 1),
            ("1.0000000004s", 1_000_000_000),
            (".5ms", 500_000),
            ("0", 0),
            ("0ms", 0),
            (" 3ms ", 3_000_000),
            ("18446744073709551615ns", u64::MAX),
        ];
        for (text, ns) in cases {
            assert_eq!(parse_duration(text, "--delay").unwrap(), ns, "{text}");
        }
    }

    #[test]
    fn bad_durations_are_input_errors_naming_the_flag() {
        for text in [
            "",
            "-1ms",
            "5",
            "1.5",
            "1m",
            "1 h",
            "nanms",
            "NaN",
            "infms",
            "1.2.3ms",
            ".ms",
            "ms",
            "18446744073709551616ns",
            "99999999999s",
            "1e3ms",
        ] {
            let msg = input_message(parse_duration(text, "--delay"));
            assert!(msg.starts_with("--delay: "), "{text}: {msg}");
        }
        assert!(input_message(parse_duration("-2s", "--x")).contains("negative"));
        assert!(input_message(parse_duration("3h", "--x")).contains("unknown unit 'h'"));
        assert!(input_message(parse_duration("99999999999s", "--x")).contains("too large"));
    }

    #[test]
    fn durations_format_and_round_trip() {
        for (ns, text) in [
            (0, "0"),
            (250, "250ns"),
            (1_500, "1.5us"),
            (6_670_000, "6.67ms"),
            (2_000_000_000, "2s"),
            (1_000_000_001, "1.000000001s"),
        ] {
            assert_eq!(format_duration(ns), text);
            assert_eq!(parse_duration(text, "t").unwrap(), ns);
        }
        assert_eq!(
            parse_duration(&format_duration(u64::MAX), "t").unwrap(),
            u64::MAX
        );
    }

    #[test]
    fn models_parse_and_print_canonically() {
        let cases = [
            ("zero", DelayModel::Zero),
            ("fixed:1ms", DelayModel::Fixed(1_000_000)),
            ("fixed:0", DelayModel::Fixed(0)),
            (
                "lognormal:6.67ms",
                DelayModel::LogNormal {
                    mean_ns: 6_670_000,
                    sigma: 1.0,
                },
            ),
            (
                "lognormal:6.67ms:0.5",
                DelayModel::LogNormal {
                    mean_ns: 6_670_000,
                    sigma: 0.5,
                },
            ),
            (
                "exponential:5ms",
                DelayModel::Exponential { mean_ns: 5_000_000 },
            ),
            ("pocketdata-ramp", DelayModel::PocketDataRamp),
            ("recorded", DelayModel::Recorded),
        ];
        for (text, model) in cases {
            assert_eq!(DelayModel::parse(text).unwrap(), model, "{text}");
            assert_eq!(model.to_string(), text);
            assert_eq!(text.parse::<DelayModel>().unwrap(), model);
        }
        assert_eq!(DelayModel::parse(DEFAULT).unwrap(), DelayModel::default());
        assert_eq!(DelayModel::default().to_string(), DEFAULT);
        // Non-canonical spellings print canonically.
        assert_eq!(
            DelayModel::parse("lognormal:6670us:1").unwrap().to_string(),
            DEFAULT
        );
    }

    #[test]
    fn bad_models_are_input_errors() {
        for text in [
            "",
            "gaussian:1ms",
            "fixed",
            "fixed:",
            "fixed:-1ms",
            "zero:1ms",
            "recorded:",
            "lognormal:0",
            "lognormal:1ms:0",
            "lognormal:1ms:-1",
            "lognormal:1ms:NaN",
            "lognormal:1ms:inf",
            "lognormal:1ms:100",
            "lognormal:1ms:x",
            "exponential:0ms",
            "exponential:1ms:2",
        ] {
            let msg = input_message(DelayModel::parse(text));
            assert!(msg.starts_with("--delay: "), "{text}: {msg}");
        }
        let msg = input_message(DelayModel::parse_as("poisson", "spec.toml: delay"));
        assert!(
            msg.starts_with("spec.toml: delay: unknown delay model 'poisson'"),
            "{msg}"
        );
    }

    fn sample_mean(model: &str, n: u64) -> f64 {
        let mut s = DelayModel::parse(model).unwrap().sampler(11).unwrap();
        (0..n).map(|i| s.next(i) as f64).sum::<f64>() / n as f64
    }

    #[test]
    fn random_models_have_the_requested_mean() {
        for (model, mean) in [
            ("lognormal:6.67ms", 6.67e6),
            ("lognormal:2ms:0.5", 2e6),
            ("exponential:5ms", 5e6),
        ] {
            let m = sample_mean(model, 200_000);
            assert!((m / mean - 1.0).abs() < 0.02, "{model}: sample mean {m}");
        }
    }

    #[test]
    fn ramp_matches_the_pocketdata_ia_log_fixture() {
        let mut s = DelayModel::PocketDataRamp.sampler(1).unwrap();
        let ms: Vec<u64> = (0..1799).map(|i| s.next(i) / 1_000_000).collect();
        assert_eq!(&ms[..8], &[0, 1, 1, 1, 2, 2, 2, 2]);
        assert_eq!(ms.iter().sum::<u64>(), 11_544);
    }

    #[test]
    fn samplers_are_deterministic_per_seed() {
        let draw = |seed| {
            let mut s = DelayModel::default().sampler(seed).unwrap();
            (0..100).map(|i| s.next(i)).collect::<Vec<_>>()
        };
        assert_eq!(draw(5), draw(5));
        assert_ne!(draw(5), draw(6));
        assert!(DelayModel::Recorded.sampler(5).is_none());
        let mut fixed = DelayModel::Fixed(7).sampler(0).unwrap();
        assert_eq!((fixed.next(0), fixed.next(99)), (7, 7));
    }
}

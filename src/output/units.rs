//! Units, one place for all of them: durations (parsed from and printed as `250us`, `6.67ms`),
//! byte sizes and rates, and the readable forms of durations, sizes and numbers in terminal
//! output. Binary and decimal multiples are spelled apart everywhere: `K`/`KiB`, `M`/`MiB`,
//! `G`/`GiB` are powers of 1 024 (a bare letter is binary, as in fio and dd), `KB`, `MB`, `GB`
//! are powers of 1 000; rates print as MiB/s (docs/measurements.md, "Units").

use crate::error::{Error, Result};

/// A duration given in nanoseconds, in the unit that keeps 3–5 significant digits.
pub fn ns(ns: u64) -> String {
    match ns {
        0..=9_999 => format!("{ns} ns"),
        10_000..=999_999 => format!("{:.1} µs", ns as f64 / 1e3),
        1_000_000..=999_999_999 => format!("{:.2} ms", ns as f64 / 1e6),
        _ => format!("{:.2} s", ns as f64 / 1e9),
    }
}

/// A byte count in KiB/MiB/GiB.
pub fn bytes(b: u64) -> String {
    match b {
        0..=9_999 => format!("{b} B"),
        10_000..=9_999_999 => format!("{:.1} KiB", b as f64 / 1024.0),
        10_000_000..=9_999_999_999 => format!("{:.1} MiB", b as f64 / 1048576.0),
        _ => format!("{:.2} GiB", b as f64 / 1073741824.0),
    }
}

/// A number with about three significant digits, without trailing zeros.
pub fn sig(v: f64) -> String {
    let a = v.abs();
    if v == 0.0 || !v.is_finite() {
        return if v == 0.0 { "0".into() } else { v.to_string() };
    }
    if a >= 1e6 {
        return format!("{}M", trim(format!("{:.2}", v / 1e6)));
    }
    let decimals = (2 - a.log10().floor() as i32).clamp(0, 9) as usize;
    trim(format!("{v:.decimals$}"))
}

fn trim(s: String) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Time units accepted by [`parse_duration`], with their size in nanoseconds and the number of
/// decimal digits below one unit that still name whole nanoseconds.
const UNITS: [(&str, u64, u32); 5] = [
    ("ns", 1, 0),
    ("us", 1_000, 3),
    ("µs", 1_000, 3),
    ("ms", 1_000_000, 6),
    ("s", 1_000_000_000, 9),
];

/// Parse a duration such as `250ns`, `500us`, `1ms`, `6.67ms` or `2s` (or a bare `0`) into
/// nanoseconds. Decimals are exact; digits finer than a nanosecond are rounded half-up.
/// Errors are bad input, prefixed with `what` (e.g. `--delay`).
pub fn parse_duration(text: &str, what: &str) -> Result<u64> {
    let fail = |why: &str| Error::input(format!("{what}: invalid duration '{text}': {why}"));
    let t = text.trim();
    if t.is_empty() {
        return Err(fail("empty (write e.g. 1ms, 250us or 0)"));
    }
    if t == "0" {
        return Ok(0);
    }
    if t.starts_with('-') {
        return Err(fail("must not be negative"));
    }
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    if number.is_empty() {
        return Err(fail("expected a number followed by ns, us, ms or s"));
    }
    let (_, unit_ns, digits) =
        UNITS
            .iter()
            .find(|(name, _, _)| *name == unit)
            .ok_or_else(|| match unit {
                "" => fail("missing unit (ns, us, ms or s)"),
                _ => fail(&format!("unknown unit '{unit}' (expected ns, us, ms or s)")),
            })?;
    scaled_decimal(number, *unit_ns, *digits).ok_or_else(|| match number.parse::<f64>() {
        Ok(_) => fail("too large"),
        Err(_) => fail("malformed number"),
    })
}

/// `number` (digits with at most one decimal point) times `unit_ns`, exactly, rounding digits
/// beyond `digits` decimal places half-up. `None` if malformed or out of range.
fn scaled_decimal(number: &str, unit_ns: u64, digits: u32) -> Option<u64> {
    let (whole, frac) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && frac.is_empty()) || frac.contains('.') {
        return None;
    }
    let whole: u64 = if whole.is_empty() {
        0
    } else {
        whole.parse().ok()?
    };
    let kept = &frac[..frac.len().min(digits as usize)];
    let mut frac_ns: u64 = if kept.is_empty() {
        0
    } else {
        kept.parse().ok()?
    };
    frac_ns *= 10u64.pow(digits - kept.len() as u32);
    if frac[kept.len()..].starts_with(|c: char| ('5'..='9').contains(&c)) {
        frac_ns += 1;
    }
    whole.checked_mul(unit_ns)?.checked_add(frac_ns)
}

/// Print nanoseconds in the largest unit that is at most the value, with exact decimals:
/// `6670000` → `6.67ms`, `1500` → `1.5us`, `0` → `0`. [`parse_duration`] reads it back.
pub fn format_duration(ns: u64) -> String {
    if ns == 0 {
        return "0".into();
    }
    let (name, unit_ns, digits) = UNITS
        .iter()
        .rev()
        .filter(|(name, _, _)| *name != "µs")
        .find(|(_, unit_ns, _)| ns >= *unit_ns)
        .copied()
        .unwrap_or(UNITS[0]);
    let (whole, frac) = (ns / unit_ns, ns % unit_ns);
    if frac == 0 {
        return format!("{whole}{name}");
    }
    let frac = format!("{frac:0width$}", width = digits as usize);
    format!("{whole}.{}{name}", frac.trim_end_matches('0'))
}

/// Byte multiples: binary (`K`, `KiB`, …) and decimal (`KB`, …), case-insensitive.
const SIZE_UNITS: [(&str, u64); 10] = [
    ("kib", 1 << 10),
    ("mib", 1 << 20),
    ("gib", 1 << 30),
    ("kb", 1_000),
    ("mb", 1_000_000),
    ("gb", 1_000_000_000),
    ("k", 1 << 10),
    ("m", 1 << 20),
    ("g", 1 << 30),
    ("b", 1),
];

/// A positive whole number of bytes: `4096`, `4K` = `4KiB` = 4 096, `4KB` = 4 000, `32M`,
/// `1GiB`, `1GB`. Errors are bad input naming `what`.
pub fn parse_size(text: &str, what: &str) -> Result<u64> {
    let t = text.trim().to_ascii_lowercase();
    let (number, mult) = SIZE_UNITS
        .iter()
        .find_map(|(u, m)| t.strip_suffix(u).map(|n| (n, *m)))
        .unwrap_or((&t, 1));
    number
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .filter(|&n| n > 0)
        .ok_or_else(|| {
            Error::input(format!(
                "{what} {text}: expected a positive size like 4096, 4K (= 4KiB = 4096), 4KB (= 4000), 32M or 1GiB"
            ))
        })
}

/// A rate in bytes per second: `4MB/s` (4 000 000), `4MiB/s` or `4M/s` (4 194 304), `512KB/s`,
/// `1000000` (bytes/s); decimals allowed (`1.5MB/s`). `None` if malformed or below 1 B/s.
pub fn parse_rate(text: &str) -> Option<u64> {
    let t = text.trim().to_ascii_lowercase();
    let t = t.strip_suffix("/s").unwrap_or(&t);
    let (num, mult) = SIZE_UNITS
        .iter()
        .find_map(|(u, m)| t.strip_suffix(u).map(|n| (n, *m as f64)))
        .unwrap_or((t, 1.0));
    let v = num.trim().parse::<f64>().ok()? * mult;
    (v >= 1.0 && v.is_finite()).then_some(v as u64)
}

/// Bytes over nanoseconds in MiB/s.
pub fn mib_per_s(bytes: u64, ns: u64) -> f64 {
    bytes as f64 / 1_048_576.0 / (ns.max(1) as f64 / 1e9)
}

/// Elapsed time as a clock: `1:02:03` or `02:03`.
pub fn clock(d: std::time::Duration) -> String {
    let s = d.as_secs();
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{:02}:{:02}", s / 60, s % 60)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn picks_readable_units() {
        assert_eq!(super::ns(950), "950 ns");
        assert_eq!(super::ns(12_345), "12.3 µs");
        assert_eq!(super::ns(6_670_000), "6.67 ms");
        assert_eq!(super::ns(838_600), "838.6 µs");
        assert_eq!(super::ns(12_000_000_000), "12.00 s");
        assert_eq!(super::bytes(4096), "4096 B");
    }

    #[test]
    fn sizes_and_rates_spell_binary_and_decimal_apart() {
        use super::{parse_rate, parse_size};
        for (text, bytes) in [
            ("4096", 4096),
            ("4K", 4096),
            ("4k", 4096),
            ("4KiB", 4096),
            ("4KB", 4000),
            ("32M", 32 << 20),
            ("32MiB", 32 << 20),
            ("32MB", 32_000_000),
            ("1G", 1 << 30),
            ("1GB", 1_000_000_000),
        ] {
            assert_eq!(parse_size(text, "--x").unwrap(), bytes, "{text}");
        }
        for bad in ["k", "0", "-4K", "4X", "1.5M", ""] {
            assert!(parse_size(bad, "--x").is_err(), "{bad}");
        }
        assert_eq!(parse_rate("4MB/s"), Some(4_000_000));
        assert_eq!(parse_rate("4MiB/s"), Some(4 << 20));
        assert_eq!(parse_rate("4M/s"), Some(4 << 20));
        assert_eq!(parse_rate("1.5MB/s"), Some(1_500_000));
        assert_eq!(parse_rate("512KB/s"), Some(512_000));
        assert_eq!(parse_rate("1000000"), Some(1_000_000));
        assert_eq!(parse_rate("fast"), None);
    }

    #[test]
    fn clock_format() {
        use std::time::Duration;
        assert_eq!(super::clock(Duration::from_secs(62)), "01:02");
        assert_eq!(super::clock(Duration::from_secs(3723)), "1:02:03");
    }
}

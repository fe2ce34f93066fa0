//! Human-readable units for terminal output.

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

/// `mean ± half-width` with significant digits (just the mean when there is no interval).
pub fn estimate(e: &crate::results::repeats::Estimate) -> String {
    match e.ci_half {
        Some(h) => format!("{} ± {}", sig(e.mean), sig(h)),
        None => sig(e.mean),
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
}

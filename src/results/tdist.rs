//! Student's t distribution, computed in code (no tables, no statistics crate): its CDF through
//! the regularised incomplete beta function, and its quantiles by bisection on the CDF. Degrees
//! of freedom may be fractional (Welch's test produces them).

/// P(T ≤ t) for Student's t with `df` degrees of freedom (`df` > 0).
pub fn cdf(t: f64, df: f64) -> f64 {
    if t.is_nan() || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if t.is_infinite() {
        return if t > 0.0 { 1.0 } else { 0.0 };
    }
    let x = df / (df + t * t);
    let tail = 0.5 * incomplete_beta(0.5 * df, 0.5, x);
    if t > 0.0 {
        1.0 - tail
    } else {
        tail
    }
}

/// The `p` quantile of Student's t with `df` degrees of freedom: the t with P(T ≤ t) = p.
pub fn quantile(p: f64, df: f64) -> f64 {
    if !(p > 0.0 && p < 1.0) || df.is_nan() || df <= 0.0 {
        return f64::NAN;
    }
    if p < 0.5 {
        return -quantile(1.0 - p, df);
    }
    if p == 0.5 {
        return 0.0;
    }
    let mut hi = 1.0;
    while cdf(hi, df) < p {
        hi *= 2.0;
        if hi > 1e300 {
            return f64::INFINITY;
        }
    }
    let mut lo = 0.0;
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if cdf(mid, df) < p {
            lo = mid;
        } else {
            hi = mid;
        }
        if hi - lo <= 1e-13 * hi {
            break;
        }
    }
    0.5 * (lo + hi)
}

/// The two-sided critical value for a confidence `level` (0.90 → the 0.95 quantile).
pub fn critical(level: f64, df: f64) -> f64 {
    quantile(0.5 + 0.5 * level, df)
}

/// ln Γ(x) for x > 0 (Lanczos, g = 7, nine coefficients; ~15 significant digits).
pub fn ln_gamma(x: f64) -> f64 {
    const G: f64 = 7.0;
    const C: [f64; 9] = [
        0.999_999_999_999_809_9,
        676.520_368_121_885_1,
        -1_259.139_216_722_402_8,
        771.323_428_777_653_1,
        -176.615_029_162_140_6,
        12.507_343_278_686_905,
        -0.138_571_095_265_720_12,
        9.984_369_578_019_572e-6,
        1.505_632_735_149_311_6e-7,
    ];
    if x < 0.5 {
        // Reflection: Γ(x) Γ(1 − x) = π / sin(πx).
        let pi = std::f64::consts::PI;
        return (pi / (pi * x).sin()).ln() - ln_gamma(1.0 - x);
    }
    let x = x - 1.0;
    let mut a = C[0];
    let t = x + G + 0.5;
    for (i, c) in C.iter().enumerate().skip(1) {
        a += c / (x + i as f64);
    }
    0.5 * (2.0 * std::f64::consts::PI).ln() + (x + 0.5) * t.ln() - t + a.ln()
}

/// The regularised incomplete beta function I_x(a, b).
pub fn incomplete_beta(a: f64, b: f64, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    if x >= 1.0 {
        return 1.0;
    }
    let ln_front = ln_gamma(a + b) - ln_gamma(a) - ln_gamma(b) + a * x.ln() + b * (1.0 - x).ln();
    let front = ln_front.exp();
    // The continued fraction converges fast for x < (a + 1) / (a + b + 2); use symmetry above.
    if x < (a + 1.0) / (a + b + 2.0) {
        front * beta_fraction(a, b, x) / a
    } else {
        1.0 - front * beta_fraction(b, a, 1.0 - x) / b
    }
}

/// Continued fraction for the incomplete beta function (modified Lentz's method).
fn beta_fraction(a: f64, b: f64, x: f64) -> f64 {
    const TINY: f64 = 1e-300;
    const EPS: f64 = 1e-15;
    let away_from_zero = |v: f64| if v.abs() < TINY { TINY } else { v };
    let (qab, qap, qam) = (a + b, a + 1.0, a - 1.0);
    let mut c = 1.0;
    let mut d = 1.0 / away_from_zero(1.0 - qab * x / qap);
    let mut h = d;
    // One Lentz step with coefficient `aa`: updates c and d, returns the factor for h.
    let mut step = |aa: f64| {
        d = 1.0 / away_from_zero(1.0 + aa * d);
        c = away_from_zero(1.0 + aa / c);
        d * c
    };
    for m in 1..=1000 {
        let m = m as f64;
        let m2 = 2.0 * m;
        h *= step(m * (b - m) * x / ((qam + m2) * (a + m2)));
        let del = step(-(a + m) * (qab + m) * x / ((a + m2) * (qap + m2)));
        h *= del;
        if (del - 1.0).abs() < EPS {
            break;
        }
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn quantiles_match_printed_tables() {
        // Values from a standard t table (upper-tail probabilities), six decimals.
        let table = [
            (0.95, 1.0, 6.313752),
            (0.95, 2.0, 2.919986),
            (0.95, 4.0, 2.131847),
            (0.95, 10.0, 1.812461),
            (0.975, 2.0, 4.302653),
            (0.975, 10.0, 2.228139),
            (0.995, 4.0, 4.604095),
            (0.995, 30.0, 2.749996),
            (0.9995, 1.0, 636.619249),
        ];
        for (p, df, t) in table {
            close(quantile(p, df), t, 1e-5 * t.max(1.0));
        }
        // Large df tends to the normal quantile 1.644854.
        close(quantile(0.95, 1e7), 1.644854, 1e-5);
        close(quantile(0.05, 2.0), -2.919986, 1e-5);
        assert_eq!(quantile(0.5, 3.0), 0.0);
        assert!(quantile(1.0, 3.0).is_nan());
        close(critical(0.90, 2.0), 2.919986, 1e-5);
    }

    #[test]
    fn cdf_matches_closed_forms() {
        use std::f64::consts::PI;
        for t in [-3.0, -0.5, 0.0, 0.7, 2.0, 12.0] {
            // df = 1 is the Cauchy distribution; df = 2 has a closed form too.
            close(cdf(t, 1.0), 0.5 + t.atan() / PI, 1e-12);
            close(cdf(t, 2.0), 0.5 + t / (2.0 * (2.0 + t * t).sqrt()), 1e-12);
        }
    }

    #[test]
    fn ln_gamma_of_known_values() {
        close(ln_gamma(1.0), 0.0, 1e-13);
        close(ln_gamma(5.0), 24f64.ln(), 1e-12);
        close(ln_gamma(0.5), std::f64::consts::PI.sqrt().ln(), 1e-12);
    }
}

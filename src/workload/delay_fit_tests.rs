//! The delay models draw from the distributions they name: the lognormal think times pass a
//! one-sample Kolmogorov–Smirnov test against the lognormal with the model's parameters at the
//! 5 % level for ten seeds, the test's critical values are checked against the published
//! table, and the same test rejects samples of a neighbouring distribution (so it can fail).

use super::delay::DelayModel;

/// Standard normal CDF, Φ(x) = erfc(−x/√2)/2, with erfc from Abramowitz & Stegun 7.1.26
/// (absolute error below 1.5e-7, far below the KS distances tested here).
fn normal_cdf(x: f64) -> f64 {
    let z = x / std::f64::consts::SQRT_2;
    let t = 1.0 / (1.0 + 0.327_591_1 * z.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let erf_abs = 1.0 - poly * (-z * z).exp();
    let erf = if z >= 0.0 { erf_abs } else { -erf_abs };
    0.5 * (1.0 + erf)
}

/// The KS statistic D = sup |F_n(x) − F(x)| of `samples` against `cdf`.
fn ks_distance(mut samples: Vec<f64>, cdf: impl Fn(f64) -> f64) -> f64 {
    samples.sort_by(f64::total_cmp);
    let n = samples.len() as f64;
    samples
        .iter()
        .enumerate()
        .map(|(i, &x)| {
            let f = cdf(x);
            (f - i as f64 / n).max((i + 1) as f64 / n - f)
        })
        .fold(0.0, f64::max)
}

/// Critical value of D at the 5 % level for `n` samples: Stephens' (1970) finite-sample form
/// of the asymptotic 1.358 / √n.
fn critical_5pct(n: usize) -> f64 {
    let r = (n as f64).sqrt();
    1.358_1 / (r + 0.12 + 0.11 / r)
}

fn lognormal_cdf(mean_ns: f64, sigma: f64) -> impl Fn(f64) -> f64 {
    let mu = mean_ns.ln() - sigma * sigma / 2.0;
    move |x: f64| {
        if x <= 0.0 {
            0.0
        } else {
            normal_cdf((x.ln() - mu) / sigma)
        }
    }
}

fn draw(model: &str, seed: u64, n: usize) -> Vec<f64> {
    let mut s = DelayModel::parse(model).unwrap().sampler(seed).unwrap();
    (0..n as u64).map(|i| s.next(i) as f64).collect()
}

const N: usize = 2_000;

#[test]
fn critical_values_match_the_published_table() {
    // Massey (1951), α = 0.05: n = 10 → 0.409, n = 20 → 0.294, n = 30 → 0.242; large n:
    // 1.358/√n, so 0.0304 at n = 2 000.
    for (n, table) in [(10, 0.409), (20, 0.294), (30, 0.242), (2_000, 0.0304)] {
        let c = critical_5pct(n);
        assert!((c - table).abs() < 0.001, "n = {n}: {c} against {table}");
    }
    // Φ at hand-checked points: Φ(0) = 0.5, Φ(1.959964) = 0.975, Φ(−1) = 0.158655.
    assert!((normal_cdf(0.0) - 0.5).abs() < 1e-7);
    assert!((normal_cdf(1.959_964) - 0.975).abs() < 1e-6);
    assert!((normal_cdf(-1.0) - 0.158_655).abs() < 1e-6);
}

#[test]
fn lognormal_delays_pass_kolmogorov_smirnov_at_5_percent_on_ten_seeds() {
    for (model, mean, sigma) in [
        ("lognormal:6.67ms", 6.67e6, super::delay::DEFAULT_SIGMA),
        ("lognormal:2ms:0.5", 2e6, 0.5),
    ] {
        for seed in 1..=10 {
            let d = ks_distance(draw(model, seed, N), lognormal_cdf(mean, sigma));
            assert!(
                d < critical_5pct(N),
                "{model}, seed {seed}: D = {d:.4} ≥ {:.4}",
                critical_5pct(N)
            );
        }
    }
}

#[test]
fn the_test_rejects_a_neighbouring_distribution() {
    // Exponential delays with the same mean, and a lognormal with a 20 % wider shape, are
    // rejected: the test has the power to fail.
    let target = lognormal_cdf(6.67e6, super::delay::DEFAULT_SIGMA);
    let exp = ks_distance(draw("exponential:6.67ms", 1, N), &target);
    assert!(exp > critical_5pct(N), "exponential passed: D = {exp}");
    let wider = format!("lognormal:6.67ms:{}", super::delay::DEFAULT_SIGMA * 1.2);
    let d = ks_distance(draw(&wider, 1, N), &target);
    assert!(d > critical_5pct(N), "a wider lognormal passed: D = {d}");
}

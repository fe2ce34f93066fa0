//! Statistics across repeats of one configuration: mean, sample standard deviation,
//! coefficient of variation and a Student-t confidence interval (90% unless asked otherwise,
//! as in PocketData); and the comparison of two configurations (Welch's t-test, the ratio of
//! their means with its uncertainty, as in hyperfine's relative-speed table). No outlier is
//! ever dropped here.

use super::tdist;
use serde::Serialize;

/// The confidence level used when none is given.
pub const DEFAULT_LEVEL: f64 = 0.90;

/// One metric over the repeats of one configuration.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Estimate {
    pub n: usize,
    pub mean: f64,
    /// Sample standard deviation (n − 1); `None` with fewer than two repeats.
    pub sd: Option<f64>,
    /// sd / mean; `None` when sd is unknown or the mean is zero.
    pub cv: Option<f64>,
    /// Half-width of the confidence interval: t(level, n − 1) · sd / √n.
    pub ci_half: Option<f64>,
    pub level: f64,
}

impl Estimate {
    /// `None` for no values. Non-finite values are ignored (a missing metric is never zero).
    pub fn of(values: &[f64], level: f64) -> Option<Estimate> {
        let v: Vec<f64> = values.iter().copied().filter(|x| x.is_finite()).collect();
        let n = v.len();
        if n == 0 {
            return None;
        }
        let mean = v.iter().sum::<f64>() / n as f64;
        let sd = (n > 1).then(|| {
            let ss: f64 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
            (ss / (n - 1) as f64).sqrt()
        });
        let cv = sd.filter(|_| mean != 0.0).map(|s| s / mean.abs());
        let ci_half = sd.map(|s| tdist::critical(level, (n - 1) as f64) * s / (n as f64).sqrt());
        Some(Estimate {
            n,
            mean,
            sd,
            cv,
            ci_half,
            level,
        })
    }

    pub fn ci(&self) -> Option<(f64, f64)> {
        self.ci_half.map(|h| (self.mean - h, self.mean + h))
    }

    /// `12.30 ± 0.45` (or just the mean with one repeat).
    /// `mean ± half-width` with about three significant digits (just the mean when there is
    /// no interval).
    pub fn sig_text(&self) -> String {
        use crate::output::units::sig;
        match self.ci_half {
            Some(h) => format!("{} ± {}", sig(self.mean), sig(h)),
            None => sig(self.mean),
        }
    }

    pub fn text(&self, decimals: usize) -> String {
        match self.ci_half {
            Some(h) => format!("{:.*} ± {:.*}", decimals, self.mean, decimals, h),
            None => format!("{:.*}", decimals, self.mean),
        }
    }
}

/// B compared with A on one metric.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Comparison {
    pub a: Estimate,
    pub b: Estimate,
    /// mean(B) / mean(A).
    pub ratio: f64,
    /// Uncertainty of the ratio, propagated from both standard deviations (as hyperfine does).
    pub ratio_sd: Option<f64>,
    /// mean(B) − mean(A) and the half-width of its Welch confidence interval.
    pub diff: f64,
    pub diff_ci_half: Option<f64>,
    /// Welch's t statistic, its degrees of freedom and two-sided p-value.
    pub t: Option<f64>,
    pub df: Option<f64>,
    pub p: Option<f64>,
    /// p < 1 − level. `None` when a side has fewer than two repeats.
    pub significant: Option<bool>,
}

impl Comparison {
    pub fn of(a: Estimate, b: Estimate) -> Comparison {
        let level = a.level;
        let ratio = if a.mean != 0.0 {
            b.mean / a.mean
        } else {
            f64::NAN
        };
        let ratio_sd = match (a.sd, b.sd) {
            (Some(sa), Some(sb)) if a.mean != 0.0 && b.mean != 0.0 => {
                Some(ratio.abs() * ((sa / a.mean).powi(2) + (sb / b.mean).powi(2)).sqrt())
            }
            _ => None,
        };
        let diff = b.mean - a.mean;
        let mut out = Comparison {
            a,
            b,
            ratio,
            ratio_sd,
            diff,
            diff_ci_half: None,
            t: None,
            df: None,
            p: None,
            significant: None,
        };
        let (Some(sa), Some(sb)) = (a.sd, b.sd) else {
            return out;
        };
        let (va, vb) = (sa * sa / a.n as f64, sb * sb / b.n as f64);
        let se = (va + vb).sqrt();
        if se == 0.0 {
            // Both sides constant: the difference is exact.
            out.p = Some(if diff == 0.0 { 1.0 } else { 0.0 });
            out.diff_ci_half = Some(0.0);
            out.significant = Some(diff != 0.0);
            return out;
        }
        let df = (va + vb).powi(2)
            / (va * va / (a.n - 1) as f64 + vb * vb / (b.n - 1) as f64).max(f64::MIN_POSITIVE);
        let t = diff / se;
        let p = 2.0 * (1.0 - tdist::cdf(t.abs(), df));
        out.t = Some(t);
        out.df = Some(df);
        out.p = Some(p.clamp(0.0, 1.0));
        out.diff_ci_half = Some(tdist::critical(level, df) * se);
        out.significant = Some(p < 1.0 - level);
        out
    }

    /// One sentence: "B is 1.52 ± 0.10 × A (significant, p = 0.004)".
    pub fn verdict(&self, a_name: &str, b_name: &str) -> String {
        let ratio = match self.ratio_sd {
            Some(sd) => format!("{:.2} ± {:.2}", self.ratio, sd),
            None => format!("{:.2}", self.ratio),
        };
        let test = match (self.significant, self.p) {
            (Some(true), Some(p)) => format!(
                "significant at {:.0}%, p = {}",
                self.a.level * 100.0,
                p_text(p)
            ),
            (Some(false), Some(p)) => format!(
                "not significant at {:.0}%, p = {}",
                self.a.level * 100.0,
                p_text(p)
            ),
            _ => "significance unknown: needs at least 2 repeats on each side".into(),
        };
        format!("{b_name} = {ratio} × {a_name} ({test})")
    }
}

fn p_text(p: f64) -> String {
    if p < 0.001 {
        "< 0.001".into()
    } else {
        format!("{p:.3}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} vs {b}");
    }

    #[test]
    fn estimate_of_three_repeats_by_hand() {
        // mean 12; sd = sqrt((4 + 0 + 4) / 2) = 2; cv = 1/6;
        // 90% CI half-width = t(0.95, 2) · 2 / √3 = 2.919986 · 1.154701 = 3.371708.
        let e = Estimate::of(&[10.0, 12.0, 14.0], 0.90).unwrap();
        assert_eq!(e.n, 3);
        close(e.mean, 12.0, 1e-12);
        close(e.sd.unwrap(), 2.0, 1e-12);
        close(e.cv.unwrap(), 1.0 / 6.0, 1e-12);
        close(e.ci_half.unwrap(), 3.371708, 1e-5);
        let (lo, hi) = e.ci().unwrap();
        close(lo, 8.628292, 1e-5);
        close(hi, 15.371708, 1e-5);
        // 95%: t(0.975, 2) · 2 / √3 = 4.302653 · 1.154701 = 4.968275.
        close(
            Estimate::of(&[10.0, 12.0, 14.0], 0.95)
                .unwrap()
                .ci_half
                .unwrap(),
            4.968275,
            1e-5,
        );
        assert_eq!(e.text(1), "12.0 ± 3.4");
    }

    #[test]
    fn one_repeat_has_no_spread_and_nothing_is_invented() {
        let e = Estimate::of(&[5.0, f64::NAN], 0.9).unwrap();
        assert_eq!((e.n, e.sd, e.ci_half, e.cv), (1, None, None, None));
        assert!(Estimate::of(&[], 0.9).is_none());
    }

    #[test]
    fn welch_comparison_by_hand() {
        // A = {10, 12, 14}, B = {20, 22, 24}: diff 10, se = sqrt(4/3 + 4/3) = 1.632993,
        // t = 6.123724, df = (8/3)² / (2 · (4/3)² / 2) = 4. t(0.995, 4) = 4.604095 < t, so
        // p < 0.01; the 90% CI half-width is t(0.95, 4) · se = 2.131847 · 1.632993 = 3.481286.
        let a = Estimate::of(&[10.0, 12.0, 14.0], 0.9).unwrap();
        let b = Estimate::of(&[20.0, 22.0, 24.0], 0.9).unwrap();
        let c = Comparison::of(a, b);
        close(c.ratio, 22.0 / 12.0, 1e-12);
        close(c.t.unwrap(), 6.123724, 1e-5);
        close(c.df.unwrap(), 4.0, 1e-9);
        close(c.diff_ci_half.unwrap(), 3.481286, 1e-5);
        let p = c.p.unwrap();
        assert!(p < 0.01 && p > 0.001, "{p}");
        assert_eq!(c.significant, Some(true));
        // ratio sd = 22/12 · sqrt((2/12)² + (2/22)²) = 1.833333 · 0.189848 = 0.348055
        close(c.ratio_sd.unwrap(), 0.348055, 1e-5);
        assert!(c
            .verdict("A", "B")
            .starts_with("B = 1.83 ± 0.35 × A (significant"));
    }

    #[test]
    fn overlapping_samples_are_not_significant() {
        let a = Estimate::of(&[10.0, 12.0, 14.0], 0.9).unwrap();
        let b = Estimate::of(&[11.0, 13.0, 12.0], 0.9).unwrap();
        let c = Comparison::of(a, b);
        assert_eq!(c.significant, Some(false));
        let single = Estimate::of(&[11.0], 0.9).unwrap();
        assert_eq!(Comparison::of(a, single).significant, None);
    }
}

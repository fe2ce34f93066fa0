//! The statistics behind rankings and explanations, on plain numbers: the 3σ rule (drop values
//! more than three standard deviations from the model's mean, as AndroBench's published tables
//! did) and the clusters test (does one model's results fall into separate groups?).
//!
//! The device page applies the 3σ rule first and looks for clusters in the values it keeps,
//! so that one wild value does not stretch the range a cluster gap is measured against.
//!
//! Clusters: the values are sorted and split where the two sides' within-group sum of squares
//! is smallest (the exact 1-D two-means split); the split stands when both sides hold at least
//! [`MIN_CLUSTER`] values and a tenth of the values, and the groups are clearly apart by
//! Ashman's D = √2·|μ₁−μ₂| / √(σ₁²+σ₂²) > [`MIN_SEPARATION`] (D > 2 is the usual threshold for
//! a clean separation of two normal components) with a gap between them wider than either
//! group's standard deviation (an even spread of values is one group, however wide) and than
//! [`MIN_GAP_SHARE`] of the whole range of the model's values (so that values rounded to a few
//! steps do not split into one cluster per step). Each side is tested again, up to
//! [`MAX_CLUSTERS`] groups. Clusters are looked for only from [`MIN_FOR_RULE`] values, the
//! count at which the 3σ rule can first act.

use serde::Serialize;

/// Standard deviations a value may be from its model's mean and still count.
pub const SIGMAS: f64 = 3.0;
/// The fewest values a cluster may have.
pub const MIN_CLUSTER: usize = 3;
/// Ashman's D a split must exceed.
pub const MIN_SEPARATION: f64 = 2.0;
/// The smallest gap between clusters, as a share of the range of all the model's values.
pub const MIN_GAP_SHARE: f64 = 0.1;
/// The fewest values at which the 3σ rule can drop one: with the sample standard deviation, no
/// value of n can be further from their mean than (n − 1)/√n standard deviations (Samuelson's
/// bound), which passes 3 only from n = 11 (10/√11 = 3.015; at 10, 9/√10 = 2.846). Below it the
/// rule never acts, and no clusters are looked for either: a model's first ten results are one
/// group, unmarked.
pub const MIN_FOR_RULE: usize = 11;
/// The most clusters reported for one model and category.
pub const MAX_CLUSTERS: usize = 4;

/// Mean and sample standard deviation (n − 1); 0 for fewer than two values. Plain sums when
/// they stay finite (exact for the usual figures), else scaled sums: every value divided by
/// the largest magnitude first, so no sum of values or of squares can overflow whatever the
/// values' size.
pub fn mean_sd(v: &[f64]) -> (f64, f64) {
    if v.is_empty() {
        return (0.0, 0.0);
    }
    let n = v.len() as f64;
    let sd = |ss: f64| {
        if v.len() < 2 {
            0.0
        } else {
            (ss / (n - 1.0)).sqrt()
        }
    };
    let sum: f64 = v.iter().sum();
    if sum.is_finite() {
        let mean = sum / n;
        let ss: f64 = v.iter().map(|x| (x - mean) * (x - mean)).sum();
        if ss.is_finite() {
            return (mean, sd(ss));
        }
    }
    let scale = v.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    let mean = v.iter().map(|x| x / scale).sum::<f64>() / n;
    let ss: f64 = v
        .iter()
        .map(|x| (x / scale - mean) * (x / scale - mean))
        .sum();
    (mean * scale, sd(ss) * scale)
}

/// What the 3σ rule keeps of one model's values.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Kept {
    pub total: usize,
    pub kept: usize,
    pub mean: f64,
    pub stddev: f64,
}

/// Whether `x` stands within [`SIGMAS`] standard deviations of the mean of `all`, as a test
/// built once for many values.
pub fn within_three_sigma(all: &[f64]) -> impl Fn(f64) -> bool {
    let (mean, sd) = mean_sd(all);
    move |x| (x - mean).abs() <= SIGMAS * sd
}

/// Apply the 3σ rule once: values within [`SIGMAS`] standard deviations of the mean of all
/// values are kept; their mean and standard deviation are returned.
pub fn three_sigma(v: &[f64]) -> Kept {
    let keep = within_three_sigma(v);
    let kept: Vec<f64> = v.iter().copied().filter(|x| keep(*x)).collect();
    let (kmean, ksd) = mean_sd(&kept);
    Kept {
        total: v.len(),
        kept: kept.len(),
        mean: kmean,
        stddev: ksd,
    }
}

/// One group of a model's values: the index range into the sorted values, mean and sd.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Cluster {
    pub from: usize,
    pub to: usize,
    pub min: f64,
    pub max: f64,
    pub mean: f64,
    pub stddev: f64,
}

/// Ashman's D between two groups.
pub fn separation(a: &[f64], b: &[f64]) -> f64 {
    let (ma, sa) = mean_sd(a);
    let (mb, sb) = mean_sd(b);
    let spread = sa.hypot(sb);
    if spread == 0.0 {
        return if ma == mb { 0.0 } else { f64::INFINITY };
    }
    std::f64::consts::SQRT_2 * (ma - mb).abs() / spread
}

/// The clusters of `sorted` (ascending): one cluster when the values form one group.
pub fn clusters(sorted: &[f64]) -> Vec<Cluster> {
    let mut cuts = vec![0, sorted.len()];
    if sorted.len() >= MIN_FOR_RULE {
        split(sorted, 0, sorted.len(), sorted.len(), &mut cuts);
    }
    cuts.sort_unstable();
    cuts.windows(2)
        .filter(|w| w[1] > w[0])
        .map(|w| {
            let part = &sorted[w[0]..w[1]];
            let (mean, stddev) = mean_sd(part);
            Cluster {
                from: w[0],
                to: w[1],
                min: part[0],
                max: part[part.len() - 1],
                mean,
                stddev,
            }
        })
        .collect()
}

fn split(v: &[f64], lo: usize, hi: usize, n: usize, cuts: &mut Vec<usize>) {
    if cuts.len() > MAX_CLUSTERS {
        return;
    }
    let part = &v[lo..hi];
    let least = MIN_CLUSTER.max(n.div_ceil(10));
    if part.len() < 2 * least {
        return;
    }
    // Prefix sums give each split's within-group sum of squares in O(1). They are of the
    // values scaled to [0, 1] over the part's range (scaled sums: no overflow, and no loss of
    // the small differences to a large common offset); the best split is the same.
    let (base, width) = (part[0], part[part.len() - 1] - part[0]);
    let width = if width > 0.0 && width.is_finite() {
        width
    } else {
        1.0
    };
    let mut s = vec![0.0; part.len() + 1];
    let mut s2 = vec![0.0; part.len() + 1];
    for (i, x) in part.iter().enumerate() {
        let x = (x - base) / width;
        s[i + 1] = s[i] + x;
        s2[i + 1] = s2[i] + x * x;
    }
    let ss = |a: usize, b: usize| {
        let k = (b - a) as f64;
        let sum = s[b] - s[a];
        (s2[b] - s2[a]) - sum * sum / k
    };
    let best = (least..=part.len() - least)
        .min_by(|&i, &j| {
            let (x, y) = (ss(0, i) + ss(i, part.len()), ss(0, j) + ss(j, part.len()));
            x.total_cmp(&y)
        })
        .expect("a non-empty range of split points");
    let (left, right) = part.split_at(best);
    let gap = right[0] - left[left.len() - 1];
    let widest = mean_sd(left).1.max(mean_sd(right).1);
    let range = v[v.len() - 1] - v[0];
    if separation(left, right) <= MIN_SEPARATION || gap <= widest || gap < MIN_GAP_SHARE * range {
        return;
    }
    cuts.push(lo + best);
    split(v, lo, lo + best, n, cuts);
    split(v, lo + best, hi, n, cuts);
}

#[cfg(test)]
mod tests {
    //! Hand-worked answers for the 3σ rule and the clusters test.
    use super::*;

    #[test]
    fn nothing_is_marked_before_the_rule_can_act() {
        // Ten values: nine of 10 and one of 1000. Mean 109, sd 313.07; the 1000 is 891 from
        // the mean, 2.846 sd (9/√10, the most any of ten can be): kept, and no clusters.
        let mut ten = vec![10.0; 9];
        ten.push(1000.0);
        let k = three_sigma(&ten);
        assert_eq!((k.total, k.kept), (10, 10));
        // Two clean groups of five: still one group at ten values.
        let two: Vec<f64> = [1.0; 5].into_iter().chain([100.0; 5]).collect();
        assert_eq!(clusters(&two).len(), 1);
        // Eleven: ten of 10 and one of 1000: mean 100, sd 298.5; the 1000 is 900 from the
        // mean, 10/√11 = 3.015 sd (the most any of eleven can be), past 3: dropped.
        let mut eleven = vec![10.0; 10];
        eleven.push(1000.0);
        let k = three_sigma(&eleven);
        assert_eq!((k.total, k.kept), (11, 10));
        // Groups of five and six at eleven values: two clusters.
        let two: Vec<f64> = [1.0; 5].into_iter().chain([100.0; 6]).collect();
        assert_eq!(clusters(&two).len(), 2);
    }

    #[test]
    fn mean_and_sample_sd() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, squared deviations 32, sample variance 32/7.
        let (m, sd) = mean_sd(&[2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]);
        assert_eq!(m, 5.0);
        assert!((sd - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
    }

    #[test]
    fn three_sigma_drops_the_outlier() {
        // 24 values of 100 and one of 1000: mean 3400/25 = 136; squared deviations
        // 24·36² + 864² = 31104 + 746496 = 777600; sample variance 777600/24 = 32400, sd 180.
        // |1000 − 136| = 864 > 3·180 = 540: dropped; the 24 hundreds are kept (mean 100, sd 0).
        let mut v = vec![100.0; 24];
        v.push(1000.0);
        let k = three_sigma(&v);
        assert_eq!(
            k,
            Kept {
                total: 25,
                kept: 24,
                mean: 100.0,
                stddev: 0.0
            }
        );
    }

    #[test]
    fn three_sigma_keeps_a_tight_group_whole() {
        // 10, 11, 12: mean 11, sd 1; every value within 3.
        let k = three_sigma(&[10.0, 11.0, 12.0]);
        assert_eq!((k.kept, k.mean, k.stddev), (3, 11.0, 1.0));
    }

    #[test]
    fn two_vendors_form_two_clusters() {
        // Ten results at 12.9/13.1 and ten at 17.9/18.1: the best split is between them
        // (index 10); each side has sd √(0.01·10/9), D = √2·5/√(2·0.0111…) = 47.4 > 2.
        let mut v: Vec<f64> = (0..10)
            .map(|i| if i % 2 == 0 { 12.9 } else { 13.1 })
            .collect();
        v.extend((0..10).map(|i| if i % 2 == 0 { 17.9 } else { 18.1 }));
        v.sort_by(f64::total_cmp);
        let c = clusters(&v);
        assert_eq!(c.len(), 2);
        assert_eq!((c[0].from, c[0].to, c[1].from, c[1].to), (0, 10, 10, 20));
        assert!((c[0].mean - 13.0).abs() < 1e-9 && (c[1].mean - 18.0).abs() < 1e-9);
    }

    #[test]
    fn an_even_spread_is_one_cluster() {
        // 1, 2, …, 20: the best split is 10 | 10 (means 5.5 and 15.5, each sd √(82.5/9) =
        // 3.03), D = √2·10/√(2·9.17) = 3.30 > 2, but the gap between the sides is 1, less than
        // their sd: no split.
        let v: Vec<f64> = (1..=20).map(f64::from).collect();
        assert_eq!(clusters(&v).len(), 1);
    }

    #[test]
    fn small_tails_are_not_clusters() {
        // 16 values at 10, two at 9 and two at 11: the least cluster is max(3, ⌈20/10⌉) = 3.
        // The best allowed split is 3 | 17 ({9, 9, 10}: mean 9.33, sd 0.577; the rest: mean
        // 10.12, sd 0.332), D = √2·0.784/√(0.333+0.110) = 1.66 ≤ 2: one cluster.
        let mut w = vec![10.0; 16];
        w.extend([9.0, 9.0, 11.0, 11.0]);
        w.sort_by(f64::total_cmp);
        let c = clusters(&w);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!((c[0].from, c[0].to), (0, 20));
    }

    #[test]
    fn rounding_steps_inside_a_cluster_do_not_split_it() {
        // 13.1 × 8 and 13.3 × 7 (sd 0 each side) beside 18.0 × 15: the first split (13.x | 18)
        // has gap 4.7 ≥ 0.1 × 4.9; inside the low side, 13.1 | 13.3 has D = ∞ but its gap 0.2
        // is under 0.49: two clusters, not three.
        let mut v = vec![13.1; 8];
        v.extend([13.3; 7]);
        v.extend([18.0; 15]);
        let c = clusters(&v);
        assert_eq!(c.len(), 2, "{c:?}");
        assert_eq!((c[0].to, c[1].from), (15, 15));
    }

    #[test]
    fn three_vendors_are_three_clusters() {
        // 10 × 10, 10 × 13, 10 × 18: gaps 3 and 5 of a range 8 (both ≥ 0.8), sds 0.
        let mut v = vec![10.0; 10];
        v.extend([13.0; 10]);
        v.extend([18.0; 10]);
        let c = clusters(&v);
        assert_eq!(
            c.iter().map(|c| (c.from, c.to)).collect::<Vec<_>>(),
            [(0, 10), (10, 20), (20, 30)]
        );
    }

    #[test]
    fn huge_values_give_finite_statistics() {
        // Two values of 1.7e308: their sum overflows, the scaled sum does not.
        let (m, sd) = mean_sd(&[1.7e308, 1.7e308]);
        assert_eq!((m, sd), (1.7e308, 0.0));
        let k = three_sigma(&[1.7e308, 1.7e308, 1.7e308]);
        assert_eq!((k.kept, k.mean), (3, 1.7e308));
        // Two clusters a billion apart on a large offset: found as on small numbers.
        let mut v = vec![1e15; 10];
        v.extend([1e15 + 1e9; 10]);
        assert_eq!(clusters(&v).len(), 2);
    }

    #[test]
    fn too_few_values_are_one_cluster() {
        assert_eq!(clusters(&[1.0, 100.0]).len(), 1);
        assert!(clusters(&[]).is_empty());
    }
}

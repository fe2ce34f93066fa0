//! Key-choice and operation-choice distributions with YCSB's semantics.
//!
//! Each generator draws from the project's own [`Rng`], so a seed always gives the same
//! sequence. The algorithms follow the published descriptions of YCSB's generators:
//! [`Zipfian`] is Gray et al.'s method from "Quickly generating billion-record synthetic
//! databases" (SIGMOD '94), [`ScrambledZipfian`] hashes a zipfian rank over a huge item
//! space onto the key range so popular keys are scattered, [`SkewedLatest`] favours the most
//! recently inserted keys, [`Hotspot`] sends a fixed share of draws to a hot prefix of the
//! range, and [`Discrete`] picks among weighted choices (the operation mix).

use crate::workload::keys::fnv_hash64;
use crate::workload::rng::Rng;

/// YCSB's default zipfian constant.
pub const ZIPFIAN_CONSTANT: f64 = 0.99;

/// Item space of YCSB's scrambled zipfian generator.
pub const SCRAMBLED_ITEM_COUNT: u64 = 10_000_000_000;

/// zeta(10 000 000 000, 0.99), precomputed by YCSB so the scrambled generator starts instantly.
pub const SCRAMBLED_ZETAN: f64 = 26.469_028_201_783_02;

/// Uniform integers in `lo..=hi`.
#[derive(Clone, Debug)]
pub struct Uniform {
    pub lo: u64,
    pub hi: u64,
}

impl Uniform {
    pub fn new(lo: u64, hi: u64) -> Self {
        debug_assert!(lo <= hi);
        Uniform { lo, hi }
    }

    #[inline]
    pub fn next(&self, rng: &mut Rng) -> u64 {
        rng.range_inclusive(self.lo, self.hi)
    }
}

/// Sequential integers `lo, lo+1, …, hi`, then around again from `lo` (YCSB `sequential`).
#[derive(Clone, Debug)]
pub struct Counter {
    lo: u64,
    interval: u64,
    count: u64,
}

impl Counter {
    pub fn new(lo: u64, hi: u64) -> Self {
        debug_assert!(lo <= hi);
        Counter {
            lo,
            interval: hi - lo + 1,
            count: 0,
        }
    }

    /// The random source is not used; it is taken for symmetry with the other generators.
    #[inline]
    pub fn next(&mut self, _rng: &mut Rng) -> u64 {
        let v = self.lo + self.count % self.interval;
        self.count = self.count.wrapping_add(1);
        v
    }
}

/// zeta(n, theta) = Σ_{i=1..n} 1 / i^theta.
pub fn zeta(n: u64, theta: f64) -> f64 {
    zeta_extend(0, n, theta, 0.0)
}

/// Extend `sum` = zeta(from, theta) to zeta(to, theta) by adding the missing terms.
pub fn zeta_extend(from: u64, to: u64, theta: f64, sum: f64) -> f64 {
    (from..to).fold(sum, |acc, i| acc + 1.0 / ((i + 1) as f64).powf(theta))
}

/// Which item count the zipfian's `eta` is computed for when the count grows between draws.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EtaRule {
    /// The current item count: the distribution is exactly zipfian over the items there are.
    Current,
    /// The count the generator was constructed with, as YCSB's `ZipfianGenerator.nextLong`
    /// does (its `2.0 / items` term keeps the construction-time `items`); a count that shrinks
    /// leaves zeta as it was (YCSB's `allowitemcountdecrease = false`).
    Construction,
}

/// Zipfian-distributed integers in `lo..lo+items`: `lo` is the most popular, `lo+1` the next,
/// and so on. The item count may grow between draws ([`Zipfian::next_of`]); zeta is then
/// extended incrementally rather than recomputed, and eta follows the [`EtaRule`].
#[derive(Clone, Debug)]
pub struct Zipfian {
    base: u64,
    /// The item count of the last draw (its rank is scaled by it).
    items: u64,
    /// The item count `zetan` sums over (YCSB's `countforzeta`).
    zeta_items: u64,
    /// The item count given at construction.
    initial_items: u64,
    rule: EtaRule,
    theta: f64,
    alpha: f64,
    zeta2theta: f64,
    zetan: f64,
    eta: f64,
}

impl Zipfian {
    /// Over `lo..=hi` with YCSB's constant 0.99.
    pub fn new(lo: u64, hi: u64) -> Self {
        Zipfian::with_constant(lo, hi, ZIPFIAN_CONSTANT)
    }

    /// Over `lo..=hi` with zipfian constant `theta` (0 < theta < 1).
    pub fn with_constant(lo: u64, hi: u64, theta: f64) -> Self {
        let items = hi - lo + 1;
        Zipfian::with_zetan(lo, hi, theta, zeta(items, theta))
    }

    /// Over `lo..=hi` with a precomputed zeta(items, theta).
    pub fn with_zetan(lo: u64, hi: u64, theta: f64, zetan: f64) -> Self {
        debug_assert!(lo <= hi && theta > 0.0 && theta < 1.0);
        let items = hi - lo + 1;
        let zeta2theta = zeta(2, theta);
        Zipfian {
            base: lo,
            items,
            zeta_items: items,
            initial_items: items,
            rule: EtaRule::Current,
            theta,
            alpha: 1.0 / (1.0 - theta),
            zeta2theta,
            zetan,
            eta: eta(items, theta, zeta2theta, zetan),
        }
    }

    /// The same generator with eta computed by `rule` when the item count changes.
    pub fn with_rule(mut self, rule: EtaRule) -> Self {
        self.rule = rule;
        self
    }

    /// A draw over the current item count.
    #[inline]
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        self.draw(rng.next_f64())
    }

    /// A draw over `items` items (at least 1), resizing first if the count changed.
    #[inline]
    pub fn next_of(&mut self, rng: &mut Rng, items: u64) -> u64 {
        self.resize(items.max(1));
        self.next(rng)
    }

    fn resize(&mut self, items: u64) {
        if items == self.items {
            return;
        }
        self.items = items;
        if items > self.zeta_items {
            self.zetan = zeta_extend(self.zeta_items, items, self.theta, self.zetan);
        } else if items < self.zeta_items && self.rule == EtaRule::Current {
            self.zetan = zeta(items, self.theta);
        } else {
            return;
        }
        self.zeta_items = items;
        let eta_items = match self.rule {
            EtaRule::Current => items,
            EtaRule::Construction => self.initial_items,
        };
        self.eta = eta(eta_items, self.theta, self.zeta2theta, self.zetan);
    }

    #[inline]
    fn draw(&self, u: f64) -> u64 {
        let uz = u * self.zetan;
        if uz < 1.0 {
            return self.base;
        }
        if uz < 1.0 + 0.5f64.powf(self.theta) {
            return self.base + 1;
        }
        let rank = (self.items as f64 * (self.eta * u - self.eta + 1.0).powf(self.alpha)) as u64;
        self.base + rank.min(self.items - 1)
    }
}

fn eta(items: u64, theta: f64, zeta2theta: f64, zetan: f64) -> f64 {
    (1.0 - (2.0 / items as f64).powf(1.0 - theta)) / (1.0 - zeta2theta / zetan)
}

/// YCSB's scrambled zipfian: a zipfian rank over 10 billion items, hashed onto `lo..=hi`, so
/// the popular keys are spread over the range instead of clustered at its start.
#[derive(Clone, Debug)]
pub struct ScrambledZipfian {
    lo: u64,
    items: u64,
    ranks: Zipfian,
}

impl ScrambledZipfian {
    pub fn new(lo: u64, hi: u64) -> Self {
        debug_assert!(lo <= hi);
        ScrambledZipfian {
            lo,
            items: hi - lo + 1,
            ranks: Zipfian::with_zetan(0, SCRAMBLED_ITEM_COUNT, ZIPFIAN_CONSTANT, SCRAMBLED_ZETAN),
        }
    }

    #[inline]
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        self.lo + fnv_hash64(self.ranks.next(rng)) % self.items
    }
}

/// YCSB's skewed-latest: the most recently inserted key is the most popular, the one before it
/// the next, and so on (`latest - zipfian(latest)`). With [`EtaRule::Construction`] (the
/// `latest` distribution) the draws are YCSB's own; with [`EtaRule::Current`]
/// (`latest-consistent`) they are exactly zipfian over the keys that exist now.
#[derive(Clone, Debug)]
pub struct SkewedLatest {
    latest: u64,
    ranks: Zipfian,
}

impl SkewedLatest {
    /// `latest` is the highest key number inserted and acknowledged so far.
    pub fn new(latest: u64, rule: EtaRule) -> Self {
        SkewedLatest {
            latest,
            ranks: Zipfian::with_constant(0, latest.max(1) - 1, ZIPFIAN_CONSTANT).with_rule(rule),
        }
    }

    /// Record that keys up to `latest` now exist.
    pub fn set_latest(&mut self, latest: u64) {
        self.latest = latest;
    }

    #[inline]
    pub fn next(&mut self, rng: &mut Rng) -> u64 {
        if self.latest == 0 {
            return 0;
        }
        self.latest - self.ranks.next_of(rng, self.latest)
    }
}

/// YCSB's hotspot generator: `hot_op_fraction` of the draws fall uniformly in the first
/// `hot_data_fraction` of `lo..=hi`, the rest uniformly in the remainder.
#[derive(Clone, Debug)]
pub struct Hotspot {
    lo: u64,
    hot_op_fraction: f64,
    hot_items: u64,
    cold_items: u64,
}

impl Hotspot {
    /// Fractions outside 0..=1 are clamped.
    pub fn new(lo: u64, hi: u64, hot_data_fraction: f64, hot_op_fraction: f64) -> Self {
        debug_assert!(lo <= hi);
        let items = hi - lo + 1;
        let hot_items = (items as f64 * hot_data_fraction.clamp(0.0, 1.0)) as u64;
        Hotspot {
            lo,
            hot_op_fraction: hot_op_fraction.clamp(0.0, 1.0),
            hot_items,
            cold_items: items - hot_items,
        }
    }

    #[inline]
    pub fn next(&self, rng: &mut Rng) -> u64 {
        let hot = rng.next_f64() < self.hot_op_fraction;
        if (hot && self.hot_items > 0) || self.cold_items == 0 {
            self.lo + rng.below(self.hot_items)
        } else {
            self.lo + self.hot_items + rng.below(self.cold_items)
        }
    }
}

/// Weighted choice among a few values (YCSB's discrete generator for the operation mix).
#[derive(Clone, Debug)]
pub struct Discrete<T> {
    /// Running totals of the weights, with their values; zero weights are dropped.
    cumulative: Vec<(f64, T)>,
    total: f64,
}

impl<T: Copy> Discrete<T> {
    /// `None` when a weight is negative or not finite, or when all weights are zero.
    pub fn new(weights: impl IntoIterator<Item = (f64, T)>) -> Option<Self> {
        let mut cumulative = Vec::new();
        let mut total = 0.0;
        for (w, v) in weights {
            if !w.is_finite() || w < 0.0 {
                return None;
            }
            if w > 0.0 {
                total += w;
                cumulative.push((total, v));
            }
        }
        (total > 0.0).then_some(Discrete { cumulative, total })
    }

    /// The share of draws that `value` gets.
    pub fn share(&self, value: T) -> f64
    where
        T: PartialEq,
    {
        let mut prev = 0.0;
        let mut share = 0.0;
        for &(cum, v) in &self.cumulative {
            if v == value {
                share += cum - prev;
            }
            prev = cum;
        }
        share / self.total
    }

    #[inline]
    pub fn next(&self, rng: &mut Rng) -> T {
        let x = rng.next_f64() * self.total;
        let last = self.cumulative.len() - 1;
        let i = self.cumulative[..last]
            .iter()
            .position(|&(cum, _)| x < cum)
            .unwrap_or(last);
        self.cumulative[i].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(n: usize, draws: usize, mut f: impl FnMut(&mut Rng) -> u64) -> Vec<u32> {
        let mut rng = Rng::new(11);
        let mut c = vec![0u32; n];
        for _ in 0..draws {
            c[f(&mut rng) as usize] += 1;
        }
        c
    }

    fn top_share(mut c: Vec<u32>, top: usize) -> f64 {
        let total: u32 = c.iter().sum();
        c.sort_unstable_by(|a, b| b.cmp(a));
        f64::from(c[..top].iter().sum::<u32>()) / f64::from(total)
    }

    #[test]
    fn zipfian_most_popular_item_gets_one_over_zeta() {
        let mut z = Zipfian::new(0, 999);
        let draws = 200_000;
        let c = counts(1000, draws, |r| z.next(r));
        let expected = 1.0 / zeta(1000, ZIPFIAN_CONSTANT);
        let got = f64::from(c[0]) / draws as f64;
        assert!(
            (got - expected).abs() < 0.01,
            "got {got}, expected {expected}"
        );
        assert!((0.12..0.15).contains(&got), "{got}");
        // Rank order: item 0 beats item 1 beats item 10.
        assert!(c[0] > c[1] && c[1] > c[10], "{:?}", &c[..11]);
    }

    #[test]
    fn zipfian_growing_matches_fresh() {
        let mut grown = Zipfian::new(0, 9);
        grown.resize(5000);
        let fresh = Zipfian::new(0, 4999);
        assert!((grown.zetan - fresh.zetan).abs() < 1e-9);
        assert!((grown.eta - fresh.eta).abs() < 1e-12);
        grown.resize(100);
        assert!((grown.zetan - zeta(100, ZIPFIAN_CONSTANT)).abs() < 1e-12);
    }

    #[test]
    fn scrambled_zipfian_is_skewed_and_uniform_is_not() {
        let mut z = ScrambledZipfian::new(0, 499);
        let scrambled = top_share(counts(500, 100_000, |r| z.next(r)), 50);
        let u = Uniform::new(0, 499);
        let uniform = top_share(counts(500, 100_000, |r| u.next(r)), 50);
        // YCSB's scrambling over 10^10 ranks leaves the top 10 % of 500 keys with about a
        // quarter of the draws (zeta(50)/zeta(10^10) from the head plus a uniform tail share).
        assert!(scrambled > 0.2, "scrambled top 10%: {scrambled}");
        assert!(
            (0.09..0.12).contains(&uniform),
            "uniform top 10%: {uniform}"
        );
        // The most popular key gets about 1/zeta(10^10) = 3.8 % (the PocketData traces agree).
        assert!(top_share(counts(500, 100_000, |r| z.next(r)), 1) > 0.03);
    }

    #[test]
    fn scrambled_zipfian_stays_in_range() {
        let mut z = ScrambledZipfian::new(100, 199);
        let mut rng = Rng::new(1);
        assert!((0..50_000).all(|_| (100..=199).contains(&z.next(&mut rng))));
    }

    #[test]
    fn hotspot_sends_hot_fraction_to_hot_set() {
        let h = Hotspot::new(0, 999, 0.2, 0.8);
        let c = counts(1000, 100_000, |r| h.next(r));
        let hot: u32 = c[..200].iter().sum();
        let share = f64::from(hot) / 100_000.0;
        assert!((share - 0.8).abs() < 0.01, "{share}");
        assert!(c[200..].iter().all(|&n| n > 0));
        let all_hot = Hotspot::new(5, 5, 1.0, 0.0);
        let mut rng = Rng::new(2);
        assert_eq!(all_hot.next(&mut rng), 5);
    }

    #[test]
    fn latest_favours_recent_keys_and_follows_inserts() {
        for rule in [EtaRule::Construction, EtaRule::Current] {
            let mut l = SkewedLatest::new(999, rule);
            let c = counts(2000, 100_000, |r| l.next(r));
            let recent: u32 = c[900..1000].iter().sum();
            assert!(recent > 50_000, "{recent}");
            assert!(c[1000..].iter().all(|&n| n == 0));
            assert!(c[999] > c[998] && c[998] > c[990]);
            l.set_latest(1999);
            let c = counts(2000, 100_000, |r| l.next(r));
            assert!(c[1900..].iter().sum::<u32>() > 50_000);
            assert_eq!(SkewedLatest::new(0, rule).next(&mut Rng::new(1)), 0);
        }
    }

    /// YCSB's `ZipfianGenerator` built for 4 items, then asked for 6 (`nextLong(6)`), worked
    /// by hand from its formulas with theta = 0.99:
    ///   zeta(2) = 1 + 2^-0.99 = 1.503478, zeta(4) = 2.093983, zeta(6) = 2.466908;
    ///   YCSB:    eta = (1 - (2/4)^0.01) / (1 - zeta(2)/zeta(6)) = 0.0176870  (items stays 4)
    ///   current: eta = (1 - (2/6)^0.01) / (1 - zeta(2)/zeta(6)) = 0.0279765
    ///   u * zeta(6) < 1 gives rank 0 (u < 0.40537); < 1 + 0.5^0.99 gives rank 1 (u < 0.60947);
    ///   otherwise rank = floor(6 * (eta*u - eta + 1)^(1/0.01)), e.g. u = 0.7:
    ///   YCSB 6 * (1 - 0.3*0.0176870)^100 = 6 * 0.5874 = 3.52 -> 3;
    ///   current 6 * (1 - 0.3*0.0279765)^100 = 6 * 0.4305 = 2.58 -> 2.
    #[test]
    fn zipfian_eta_follows_ycsb_when_the_item_count_grows() {
        let us = [0.1, 0.3, 0.45, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99, 0.999];
        let ycsb = [0, 0, 1, 1, 3, 4, 5, 5, 5, 5];
        let current = [0, 0, 1, 1, 2, 3, 4, 5, 5, 5];
        for (rule, want) in [(EtaRule::Construction, ycsb), (EtaRule::Current, current)] {
            let mut z = Zipfian::new(0, 3).with_rule(rule);
            assert!((z.zetan - 2.093983).abs() < 1e-6);
            z.resize(6);
            assert!((z.zetan - 2.466908).abs() < 1e-6);
            let got: Vec<u64> = us.iter().map(|&u| z.draw(u)).collect();
            assert_eq!(got, want, "{rule:?}");
        }
        // The latest generator over keys 1..=6 (built when key 4 was the newest): key =
        // latest - rank, so the YCSB draws above are keys 6, 6, 5, 5, 3, 2, 1, 1, 1, 1.
        let mut l = SkewedLatest::new(4, EtaRule::Construction);
        l.set_latest(6);
        l.ranks.resize(6);
        let keys: Vec<u64> = us.iter().map(|&u| 6 - l.ranks.draw(u)).collect();
        assert_eq!(keys, [6, 6, 5, 5, 3, 2, 1, 1, 1, 1]);
    }

    #[test]
    fn counter_wraps_and_uniform_covers_range() {
        let mut c = Counter::new(3, 5);
        let mut rng = Rng::new(0);
        let v: Vec<u64> = (0..7).map(|_| c.next(&mut rng)).collect();
        assert_eq!(v, [3, 4, 5, 3, 4, 5, 3]);
        let u = Uniform::new(10, 19);
        let c = counts(20, 50_000, |r| u.next(r));
        assert!(c[..10].iter().all(|&n| n == 0) && c[10..].iter().all(|&n| n > 4000));
    }

    #[test]
    fn discrete_follows_weights() {
        let d = Discrete::new([(0.5, 'r'), (0.0, 'x'), (0.3, 'u'), (0.2, 'i')]).expect("valid");
        let mut rng = Rng::new(4);
        let mut n = [0u32; 3];
        for _ in 0..100_000 {
            match d.next(&mut rng) {
                'r' => n[0] += 1,
                'u' => n[1] += 1,
                'i' => n[2] += 1,
                other => panic!("drew {other}"),
            }
        }
        for (got, want) in n.iter().zip([0.5, 0.3, 0.2]) {
            assert!((f64::from(*got) / 100_000.0 - want).abs() < 0.01, "{n:?}");
        }
        assert!((d.share('u') - 0.3).abs() < 1e-12);
        assert!(Discrete::new([(0.0, 1)]).is_none());
        assert!(Discrete::new([(1.0, 1), (-0.1, 2)]).is_none());
        assert!(Discrete::new([(f64::NAN, 1)]).is_none());
    }
}

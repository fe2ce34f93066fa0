//! Latency statistics: HdrHistogram-backed percentiles (p50, p90, p95, p99, p99.9, max) with
//! three significant digits, reported in microseconds.

use hdrhistogram::Histogram;
use serde::{Deserialize, Serialize};

/// A latency distribution being accumulated, in nanoseconds.
pub struct LatencyHistogram {
    hist: Histogram<u64>,
    sum_ns: u128,
}

/// An empty HdrHistogram of latencies: 3 significant digits from 1 to about an hour (in ns;
/// the unit is the caller's), growing beyond when needed. Every latency histogram is one.
pub fn histogram() -> Histogram<u64> {
    let mut h = Histogram::new_with_bounds(1, 3_600_000_000_000, 3)
        .unwrap_or_else(|_| unreachable!("constant bounds are valid"));
    h.auto(true);
    h
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram {
            hist: histogram(),
            sum_ns: 0,
        }
    }
}

impl LatencyHistogram {
    #[inline]
    pub fn record(&mut self, ns: u64) {
        let _ = self.hist.record(ns.max(1));
        self.sum_ns += u128::from(ns);
    }

    pub fn count(&self) -> u64 {
        self.hist.len()
    }

    /// The value (ns) at quantile `q` in 0..=1; 0 when empty.
    pub fn quantile_ns(&self, q: f64) -> u64 {
        if self.hist.is_empty() {
            0
        } else {
            self.hist.value_at_quantile(q.clamp(0.0, 1.0))
        }
    }

    /// The exact mean (ns) of what was recorded; 0 when empty.
    pub fn mean_ns(&self) -> f64 {
        self.sum_ns as f64 / self.count().max(1) as f64
    }

    pub fn add(&mut self, other: &LatencyHistogram) {
        let _ = self.hist.add(&other.hist);
        self.sum_ns += other.sum_ns;
    }

    pub fn summary(&self) -> LatencySummary {
        let n = self.hist.len();
        let us = |ns: u64| ns as f64 / 1000.0;
        if n == 0 {
            return LatencySummary::default();
        }
        let q = |p: f64| us(self.hist.value_at_quantile(p));
        LatencySummary {
            count: n,
            mean: round3(self.sum_ns as f64 / n as f64 / 1000.0),
            min: round3(us(self.hist.min())),
            p50: round3(q(0.50)),
            p90: round3(q(0.90)),
            p95: round3(q(0.95)),
            p99: round3(q(0.99)),
            p999: round3(q(0.999)),
            max: round3(us(self.hist.max())),
        }
    }
}

/// Percentiles of one distribution, in microseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencySummary {
    pub count: u64,
    pub mean: f64,
    pub min: f64,
    pub p50: f64,
    pub p90: f64,
    pub p95: f64,
    pub p99: f64,
    pub p999: f64,
    pub max: f64,
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_of_a_known_distribution() {
        let mut h = LatencyHistogram::default();
        for i in 1..=1000u64 {
            h.record(i * 1000); // 1 µs .. 1000 µs
        }
        let s = h.summary();
        assert_eq!(s.count, 1000);
        assert!((s.mean - 500.5).abs() < 0.01, "{s:?}");
        assert!((s.p50 - 500.0).abs() <= 1.0, "{s:?}");
        assert!((s.p99 - 990.0).abs() <= 1.0, "{s:?}");
        assert!((s.max - 1000.0).abs() <= 1.0, "{s:?}");
        assert!(s.min <= 1.001);
    }

    #[test]
    fn empty_histogram_is_all_zero() {
        assert_eq!(
            LatencyHistogram::default().summary(),
            LatencySummary::default()
        );
    }
}

//! The overall storage score of a device model: the geometric mean, over the four file test
//! categories (`seq-read`, `seq-write`, `rand-read`, `rand-write`) the model has results in, of
//! its mean (after the 3σ rule) divided by the reference — the median of every model's mean in
//! that category — times 1 000. A model as fast as the middle of the field scores 1 000; twice
//! as fast in every category, 2 000; a geometric mean, so that no one category's unit or scale
//! outweighs the others.

use super::db::Db;
use super::rankings;
use crate::error::Result;

/// The categories the score combines.
pub const CATEGORIES: [&str; 4] = ["seq-read", "seq-write", "rand-read", "rand-write"];

/// The score from (category, model mean, reference) triples; None without any.
pub fn combine(parts: &[(&str, f64, f64)]) -> Option<f64> {
    let logs: Vec<f64> = parts
        .iter()
        .filter(|(_, m, r)| *m > 0.0 && *r > 0.0)
        .map(|(_, m, r)| (m / r).ln())
        .collect();
    if logs.is_empty() {
        return None;
    }
    Some(1000.0 * (logs.iter().sum::<f64>() / logs.len() as f64).exp())
}

/// The median of `v` (the mean of the middle two for an even count).
fn median(mut v: Vec<f64>) -> Option<f64> {
    if v.is_empty() {
        return None;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    Some(if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    })
}

/// `model`'s score and the categories it came from.
pub fn of_model(db: &Db, model: &str) -> Result<Option<(f64, Vec<&'static str>)>> {
    let mut parts = Vec::new();
    for c in CATEGORIES {
        let all = rankings::by_first_seen(db, c)?;
        let Some(mine) = all.iter().find(|r| r.model == model) else {
            continue;
        };
        if let Some(reference) = median(all.iter().map(|r| r.mean).collect()) {
            parts.push((c, mine.mean, reference));
        }
    }
    Ok(combine(&parts).map(|s| (s, parts.iter().map(|p| p.0).collect())))
}

#[cfg(test)]
mod tests {
    //! Hand-worked scores.
    use super::*;

    #[test]
    fn the_score_is_the_geometric_mean_of_ratios_to_the_median() {
        // Twice the reference in sequential read, half in random write: √(2 · 0.5) = 1 → 1000.
        let s = combine(&[("seq-read", 200.0, 100.0), ("rand-write", 500.0, 1000.0)]).unwrap();
        assert!((s - 1000.0).abs() < 1e-9);
        // 4× and 1×: √4 = 2 → 2000.
        let s = combine(&[("seq-read", 400.0, 100.0), ("seq-write", 50.0, 50.0)]).unwrap();
        assert!((s - 2000.0).abs() < 1e-9);
        assert_eq!(combine(&[]), None);
        assert_eq!(median(vec![3.0, 1.0, 2.0]), Some(2.0));
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), Some(2.5));
    }
}

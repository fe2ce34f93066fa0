//! Validation of the model against known analytic results for garbage collection under
//! uniform random single-page writes with over-provisioning ratio ρ (spare / logical space):
//!
//! * Xiang & Kurkoski 2012 ("An Improved Analytical Expression for Write Amplification in NAND
//!   Flash", arXiv:1110.4245), for greedy GC, of the same form as Desnoyers' 2012 model for
//!   LRU/FIFO cleaning ("Analytic Modeling of SSD Write Performance", SYSTOR 2012):
//!   `WA = α / (α + W₀(−α·e^(−α)))` with `α = 1 + ρ` and W₀ the principal Lambert W branch.
//! * Agarwal & Marrow 2010 ("A closed-form expression for write amplification in NAND flash"):
//!   `WA ≈ (1 + ρ) / (2ρ)`, cruder (2.17 at ρ = 0.3 where simulation gives 2.35).
//!
//! Both assume many pages per block; real geometries (64–256 pages) come out a little lower.

use super::config::{ModelConfig, Precondition, VictimPolicy};
use super::ftl::Ftl;
use crate::workload::rng::Rng;
use serde::Serialize;

/// Principal branch of the Lambert W function for x ∈ [−1/e, 0] ∪ (0, ∞).
pub fn lambert_w0(x: f64) -> f64 {
    let e_inv = (-1.0f64).exp();
    if x <= -e_inv {
        return -1.0;
    }
    // Start near the branch point for x close to −1/e, else from log1p.
    let mut w = if x < -0.3 {
        let p = (2.0 * (1.0 + std::f64::consts::E * x)).sqrt();
        -1.0 + p - p * p / 3.0
    } else {
        x.ln_1p()
    };
    for _ in 0..64 {
        let ew = w.exp();
        let f = w * ew - x;
        let denom = ew * (w + 1.0) - (w + 2.0) * f / (2.0 * w + 2.0);
        let next = w - f / denom;
        if (next - w).abs() < 1e-15 {
            return next;
        }
        w = next;
    }
    w
}

/// Xiang–Kurkoski / Desnoyers: `α / (α + W₀(−α e^(−α)))`, α = 1 + ρ.
pub fn wa_lambert(rho: f64) -> f64 {
    let a = 1.0 + rho;
    a / (a + lambert_w0(-a * (-a).exp()))
}

/// Agarwal–Marrow: `(1 + ρ) / (2ρ)`.
pub fn wa_agarwal(rho: f64) -> f64 {
    (1.0 + rho) / (2.0 * rho)
}

/// One row of the validation table.
#[derive(Clone, Debug, Serialize)]
pub struct Validation {
    pub op: f64,
    pub policy: String,
    pub pages_per_block: u32,
    pub blocks: u64,
    pub measured_writes: u64,
    pub simulated_wa: f64,
    pub lambert_wa: f64,
    pub agarwal_wa: f64,
    /// (simulated − Lambert) / Lambert.
    pub relative_error: f64,
}

/// Simulate uniform random single-page writes on a full logical space: write every logical
/// page once, `warmup` × that many random overwrites, then measure WA over `measure` × more.
pub fn simulate_uniform(mut c: ModelConfig, warmup: f64, measure: f64, seed: u64) -> Validation {
    c.precondition = Precondition::Fresh;
    let mut ftl = Ftl::new(&c);
    let n = ftl.logical_pages();
    for lpn in 0..n {
        ftl.write(lpn);
    }
    let mut rng = Rng::derive(seed, "flash-validation");
    for _ in 0..(f64::from(n) * warmup) as u64 {
        ftl.write(rng.below(u64::from(n)) as u32);
    }
    let before = ftl.counters;
    let writes = (f64::from(n) * measure) as u64;
    for _ in 0..writes {
        ftl.write(rng.below(u64::from(n)) as u32);
    }
    let d = ftl.counters - before;
    let sim = d.flash_programs() as f64 / d.host_programs as f64;
    let lambert = wa_lambert(c.op);
    Validation {
        op: c.op,
        policy: c.gc.name().to_string(),
        pages_per_block: c.pages_per_block,
        blocks: c.physical_blocks(),
        measured_writes: writes,
        simulated_wa: round3(sim),
        lambert_wa: round3(lambert),
        agarwal_wa: round3(wa_agarwal(c.op)),
        relative_error: round3((sim - lambert) / lambert),
    }
}

/// The validation grid of `flash validate`: each ρ with each policy.
pub fn table(configs: &[ModelConfig], policies: &[VictimPolicy]) -> Vec<Validation> {
    let mut rows = Vec::new();
    for c in configs {
        for &gc in policies {
            let c = ModelConfig { gc, ..c.clone() };
            rows.push(simulate_uniform(c, 4.0, 4.0, 1));
        }
    }
    rows
}

fn round3(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lambert_w_and_the_published_numbers() {
        for x in [-0.36, -0.2, -0.01, 0.5, 2.0] {
            let w = lambert_w0(x);
            assert!((w * w.exp() - x).abs() < 1e-12, "W({x}) = {w}");
        }
        // Xiang & Kurkoski's example: ρ = 0.3 gives 2.36 (Agarwal: 2.17).
        assert!(
            (wa_lambert(0.3) - 2.36).abs() < 0.005,
            "{}",
            wa_lambert(0.3)
        );
        assert!((wa_agarwal(0.3) - 2.1667).abs() < 0.001);
    }

    /// The analytic validation at 7%, 15% and 30% over-provisioning (64 pages per block,
    /// 1024 blocks): FIFO cleaning within ±3% of the Lambert-W model (exact for FIFO/LRU in
    /// Desnoyers' analysis); greedy no worse than FIFO and within −12%…+2% of the same
    /// expression (greedy with finite blocks beats the large-block limit at low ρ).
    #[test]
    fn write_amplification_matches_the_analytic_models() {
        for op in [0.07, 0.15, 0.3] {
            let run = |gc: &str| {
                let pairs = [("capacity_mib", "128"), ("gc", gc)]
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .chain([("op".to_string(), op.to_string())])
                    .collect::<Vec<_>>();
                simulate_uniform(
                    ModelConfig::build("slc-2k", &pairs, "test").unwrap(),
                    2.0,
                    2.0,
                    7,
                )
            };
            let (fifo, greedy) = (run("fifo"), run("greedy"));
            assert!(
                fifo.relative_error.abs() <= 0.03,
                "FIFO ρ={op}: simulated {} vs analytic {}",
                fifo.simulated_wa,
                fifo.lambert_wa
            );
            assert!(
                (-0.12..=0.02).contains(&greedy.relative_error),
                "greedy ρ={op}: simulated {} vs analytic {}",
                greedy.simulated_wa,
                greedy.lambert_wa
            );
            assert!(greedy.simulated_wa <= fifo.simulated_wa);
        }
    }
}

//! The flash model's configuration: NAND geometry and timings, the translation layer's
//! policies (over-provisioning, write buffer, garbage-collection victim choice and trigger),
//! preconditioning, and the named presets. Every knob is set from `key=value` pairs, the same
//! way on every command (`--flash-model SPEC` on `run`, `--preset`/`--flash` elsewhere).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// How the garbage collector picks the block to reclaim.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VictimPolicy {
    /// Fewest valid pages (cheapest to clean now).
    Greedy,
    /// Kawaguchi/Rosenblum cost-benefit: maximise age × (1 − u) / 2u.
    CostBenefit,
    /// Oldest written block first (a log-structured circular cleaner).
    Fifo,
}

impl VictimPolicy {
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "greedy" => Some(Self::Greedy),
            "cost-benefit" => Some(Self::CostBenefit),
            "fifo" => Some(Self::Fifo),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Greedy => "greedy",
            Self::CostBenefit => "cost-benefit",
            Self::Fifo => "fifo",
        }
    }
}

/// The state of the device before the trace is applied.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum Precondition {
    /// Every block erased, nothing mapped.
    Fresh,
    /// `fill` of the logical space written sequentially (other data on the device), then
    /// `frag` × that many single-page overwrites at uniformly random places inside it.
    Aged { fill: f64, frag: f64 },
}

/// Everything the model needs to know.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelConfig {
    /// Preset the values started from.
    pub preset: String,
    pub page_size: u32,
    pub pages_per_block: u32,
    pub read_ns: u64,
    pub program_ns: u64,
    pub erase_ns: u64,
    /// Logical (user-visible) capacity in MiB.
    pub capacity_mib: u64,
    /// Over-provisioning ratio ρ: spare physical space / logical space.
    pub op: f64,
    pub gc: VictimPolicy,
    /// Garbage collection runs when fewer free blocks than this remain.
    pub gc_threshold: u32,
    /// Write buffer in pages (0: write-through), flushed on sync and when full.
    pub write_buffer_pages: u32,
    pub precondition: Precondition,
    /// Seed of the preconditioning overwrites.
    pub seed: u64,
}

/// The keys `key=value` pairs may set, with their meaning (for `--help` and errors).
pub const KEYS: &[(&str, &str)] = &[
    ("page_size", "NAND page size in bytes"),
    ("pages_per_block", "pages per erase block"),
    ("read_us", "page read time, µs"),
    ("program_us", "page program time, µs"),
    ("erase_us", "block erase time, µs"),
    ("capacity_mib", "logical capacity, MiB"),
    ("op", "over-provisioning ratio (0.07 = 7% spare)"),
    ("gc", "victim policy: greedy, cost-benefit, fifo"),
    (
        "gc_threshold",
        "free blocks below which garbage collection runs",
    ),
    ("write_buffer", "write buffer in pages (0 = write-through)"),
    ("precondition", "fresh or aged"),
    (
        "fill",
        "aged: fraction of the logical space already written",
    ),
    (
        "frag",
        "aged: random overwrites, as a multiple of the filled pages",
    ),
    ("seed", "seed of the preconditioning overwrites"),
];

/// Preset names with one line each.
pub const PRESETS: &[(&str, &str)] = &[
    ("slc-2k", "the studied raw NAND chip: 2 KiB pages, 64 pages/block, read 25 µs, program 300 µs, erase 500 µs, no write buffer beyond one block"),
    ("mlc-4k", "generic MLC: 4 KiB pages, 128 pages/block, read 50 µs, program 900 µs, erase 3 ms"),
    ("emmc-like", "an eMMC-like managed device: 8 KiB pages, 256 pages/block, read 75 µs, program 1.3 ms, erase 3.5 ms, 512 KiB write cache"),
];

impl ModelConfig {
    /// The named preset.
    pub fn preset(name: &str) -> Result<Self> {
        let base = ModelConfig {
            preset: name.to_string(),
            page_size: 2048,
            pages_per_block: 64,
            read_ns: 25_000,
            program_ns: 300_000,
            erase_ns: 500_000,
            capacity_mib: 64,
            op: 0.07,
            gc: VictimPolicy::Greedy,
            gc_threshold: 2,
            write_buffer_pages: 64,
            precondition: Precondition::Aged {
                fill: 0.75,
                frag: 1.0,
            },
            seed: 1,
        };
        Ok(match name {
            "slc-2k" => base,
            "mlc-4k" => ModelConfig {
                page_size: 4096,
                pages_per_block: 128,
                read_ns: 50_000,
                program_ns: 900_000,
                erase_ns: 3_000_000,
                write_buffer_pages: 128,
                ..base
            },
            "emmc-like" => ModelConfig {
                page_size: 8192,
                pages_per_block: 256,
                read_ns: 75_000,
                program_ns: 1_300_000,
                erase_ns: 3_500_000,
                capacity_mib: 256,
                write_buffer_pages: 64,
                ..base
            },
            _ => {
                let names: Vec<&str> = PRESETS.iter().map(|p| p.0).collect();
                return Err(Error::input(format!(
                    "unknown flash preset '{name}' (available: {})",
                    names.join(", ")
                )));
            }
        })
    }

    /// A preset with `key=value` overrides applied, validated. `flag` names the option the
    /// pairs came from, for error messages.
    pub fn build(preset: &str, pairs: &[(String, String)], flag: &str) -> Result<Self> {
        let mut c = Self::preset(preset).map_err(|e| e.context(flag))?;
        let (mut fill, mut frag) = match c.precondition {
            Precondition::Aged { fill, frag } => (fill, frag),
            Precondition::Fresh => (0.75, 1.0),
        };
        let mut aged = matches!(c.precondition, Precondition::Aged { .. });
        for (k, v) in pairs {
            let bad = |what: &str| Error::input(format!("{flag} {k}={v}: {what}"));
            let int = || v.parse::<u64>().map_err(|_| bad("expected a whole number"));
            let float = || {
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite())
                    .ok_or_else(|| bad("expected a number"))
            };
            let us = || Ok::<u64, Error>(int()? * 1000);
            match k.as_str() {
                "page_size" => c.page_size = int()? as u32,
                "pages_per_block" => c.pages_per_block = int()? as u32,
                "read_us" => c.read_ns = us()?,
                "program_us" => c.program_ns = us()?,
                "erase_us" => c.erase_ns = us()?,
                "capacity_mib" => c.capacity_mib = int()?,
                "op" => c.op = float()?,
                "gc" => {
                    c.gc = VictimPolicy::parse(v)
                        .ok_or_else(|| bad("expected greedy, cost-benefit or fifo"))?
                }
                "gc_threshold" => c.gc_threshold = int()? as u32,
                "write_buffer" => c.write_buffer_pages = int()? as u32,
                "precondition" => {
                    aged = match v.as_str() {
                        "fresh" => false,
                        "aged" => true,
                        _ => return Err(bad("expected fresh or aged")),
                    }
                }
                "fill" => fill = float()?,
                "frag" => frag = float()?,
                "seed" => c.seed = int()?,
                _ => {
                    let keys: Vec<&str> = KEYS.iter().map(|k| k.0).collect();
                    return Err(Error::input(format!(
                        "{flag} {k}={v}: unknown key (known: {})",
                        keys.join(", ")
                    )));
                }
            }
        }
        c.precondition = if aged {
            Precondition::Aged { fill, frag }
        } else {
            Precondition::Fresh
        };
        c.validate(flag)?;
        Ok(c)
    }

    /// Parse `PRESET[,key=value…]` (the `run --flash-model` form).
    pub fn parse_spec(spec: &str, flag: &str) -> Result<Self> {
        let mut parts = spec.split(',').map(str::trim).filter(|p| !p.is_empty());
        let first = parts.next().unwrap_or("slc-2k");
        let (preset, mut pairs) = if first.contains('=') {
            ("slc-2k", vec![split_pair(first, flag)?])
        } else {
            (first, Vec::new())
        };
        for p in parts {
            pairs.push(split_pair(p, flag)?);
        }
        Self::build(preset, &pairs, flag)
    }

    fn validate(&self, flag: &str) -> Result<()> {
        let bad = |m: String| Err(Error::input(format!("{flag}: {m}")));
        if !self.page_size.is_power_of_two() || !(512..=65536).contains(&self.page_size) {
            return bad(format!(
                "page_size={} must be a power of two from 512 to 65536",
                self.page_size
            ));
        }
        if !(2..=4096).contains(&self.pages_per_block) {
            return bad(format!(
                "pages_per_block={} must be 2..4096",
                self.pages_per_block
            ));
        }
        if !(0.01..=4.0).contains(&self.op) {
            return bad(format!("op={} must be between 0.01 and 4", self.op));
        }
        if self.gc_threshold < 2 {
            return bad(format!(
                "gc_threshold={} must be at least 2",
                self.gc_threshold
            ));
        }
        if self.capacity_mib == 0 || self.capacity_mib > 1 << 20 {
            return bad(format!(
                "capacity_mib={} must be 1..1048576",
                self.capacity_mib
            ));
        }
        if let Precondition::Aged { fill, frag } = self.precondition {
            if !(0.0..=0.99).contains(&fill) {
                return bad(format!("fill={fill} must be between 0 and 0.99"));
            }
            if !(0.0..=100.0).contains(&frag) {
                return bad(format!("frag={frag} must be between 0 and 100"));
            }
        }
        let spare_blocks = self.physical_blocks() - self.logical_blocks_ceil();
        if spare_blocks < u64::from(self.gc_threshold) + 2 {
            return bad(format!(
                "op={} leaves {spare_blocks} spare blocks; garbage collection needs at least gc_threshold + 2 = {} (raise op or capacity_mib)",
                self.op,
                self.gc_threshold + 2
            ));
        }
        if self.logical_pages() > u64::from(u32::MAX / 2) {
            return bad("capacity_mib / page_size gives too many pages".into());
        }
        Ok(())
    }

    pub fn logical_pages(&self) -> u64 {
        self.capacity_mib * 1024 * 1024 / u64::from(self.page_size)
    }

    fn logical_blocks_ceil(&self) -> u64 {
        self.logical_pages()
            .div_ceil(u64::from(self.pages_per_block))
    }

    /// Physical blocks: logical capacity plus over-provisioning, rounded up.
    pub fn physical_blocks(&self) -> u64 {
        let logical = self.logical_pages() as f64 / f64::from(self.pages_per_block);
        (logical * (1.0 + self.op)).ceil() as u64
    }

    /// One line describing the model, for reports.
    pub fn describe(&self) -> String {
        let pre = match self.precondition {
            Precondition::Fresh => "fresh".to_string(),
            Precondition::Aged { fill, frag } => format!("aged fill={fill} frag={frag}"),
        };
        format!(
            "{}: {} B pages × {}/block, read {} µs, program {} µs, erase {} µs; {} MiB logical, OP {:.0}%, GC {} (below {} free blocks), write buffer {} pages; {pre}",
            self.preset,
            self.page_size,
            self.pages_per_block,
            self.read_ns / 1000,
            self.program_ns / 1000,
            self.erase_ns / 1000,
            self.capacity_mib,
            self.op * 100.0,
            self.gc.name(),
            self.gc_threshold,
            self.write_buffer_pages,
        )
    }
}

/// `key=value` → pair, naming `flag` when malformed.
pub fn split_pair(s: &str, flag: &str) -> Result<(String, String)> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(Error::input(format!("{flag} {s}: expected key=value"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_overrides_and_errors() {
        let c = ModelConfig::parse_spec("mlc-4k,op=0.2,gc=fifo,precondition=fresh", "--m").unwrap();
        assert_eq!((c.page_size, c.pages_per_block), (4096, 128));
        assert_eq!(c.gc, VictimPolicy::Fifo);
        assert_eq!(c.precondition, Precondition::Fresh);
        let d = ModelConfig::parse_spec("", "--m").unwrap();
        assert_eq!(
            (d.page_size, d.read_ns, d.program_ns, d.erase_ns),
            (2048, 25_000, 300_000, 500_000)
        );
        assert_eq!(d.op, 0.07);
        let e = ModelConfig::parse_spec("slc-2k,bogus=1", "--m").unwrap_err();
        assert!(e.to_string().starts_with("--m bogus=1: unknown key"), "{e}");
        let e = ModelConfig::parse_spec("nand9", "--m").unwrap_err();
        assert!(
            e.to_string().contains("unknown flash preset 'nand9'"),
            "{e}"
        );
        let e = ModelConfig::parse_spec("slc-2k,capacity_mib=1,op=0.01", "--m").unwrap_err();
        assert!(e.to_string().contains("spare blocks"), "{e}");
    }
}

//! What the flash model counts: host page reads and programs, read-modify-write reads, garbage
//! collection copies, block erases and trims; the modelled flash time they add up to; and the
//! derived figures the flash study plots (write amplification, operations per KB of user data,
//! the erase-count distribution). All of it is modelled, never measured on a device.

use serde::{Deserialize, Serialize};
use std::ops::{AddAssign, Sub};

/// Counters of one span of the trace (an operation, a phase, a run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FlashCounters {
    /// Bytes the database read and wrote (file level).
    pub user_read_bytes: u64,
    pub user_write_bytes: u64,
    /// Page reads serving the database's reads.
    pub host_reads: u64,
    /// Page reads of old data to merge a partial-page write (read-modify-write).
    pub rmw_reads: u64,
    /// Page programs of the database's data.
    pub host_programs: u64,
    /// Valid pages the garbage collector copied (one read and one program each).
    pub gc_reads: u64,
    pub gc_programs: u64,
    pub erases: u64,
    /// Logical pages trimmed by truncates and deletes.
    pub trimmed_pages: u64,
    /// Syncs (write-buffer flushes requested by the database).
    pub syncs: u64,
    /// Modelled flash busy time: reads × t_read + programs × t_program + erases × t_erase.
    pub flash_ns: u64,
}

impl AddAssign for FlashCounters {
    fn add_assign(&mut self, o: Self) {
        self.user_read_bytes += o.user_read_bytes;
        self.user_write_bytes += o.user_write_bytes;
        self.host_reads += o.host_reads;
        self.rmw_reads += o.rmw_reads;
        self.host_programs += o.host_programs;
        self.gc_reads += o.gc_reads;
        self.gc_programs += o.gc_programs;
        self.erases += o.erases;
        self.trimmed_pages += o.trimmed_pages;
        self.syncs += o.syncs;
        self.flash_ns += o.flash_ns;
    }
}

impl Sub for FlashCounters {
    type Output = Self;
    fn sub(self, o: Self) -> Self {
        FlashCounters {
            user_read_bytes: self.user_read_bytes - o.user_read_bytes,
            user_write_bytes: self.user_write_bytes - o.user_write_bytes,
            host_reads: self.host_reads - o.host_reads,
            rmw_reads: self.rmw_reads - o.rmw_reads,
            host_programs: self.host_programs - o.host_programs,
            gc_reads: self.gc_reads - o.gc_reads,
            gc_programs: self.gc_programs - o.gc_programs,
            erases: self.erases - o.erases,
            trimmed_pages: self.trimmed_pages - o.trimmed_pages,
            syncs: self.syncs - o.syncs,
            flash_ns: self.flash_ns - o.flash_ns,
        }
    }
}

impl FlashCounters {
    /// Every page read the flash performed.
    pub fn flash_reads(&self) -> u64 {
        self.host_reads + self.rmw_reads + self.gc_reads
    }

    /// Every page program the flash performed.
    pub fn flash_programs(&self) -> u64 {
        self.host_programs + self.gc_programs
    }

    /// Derived figures; `page_size` and `pages_per_block` of the modelled device, `user_kb` the
    /// KB of user data to normalise by (None: the bytes the database wrote).
    pub fn derived(&self, page_size: u32, pages_per_block: u32, user_kb: Option<f64>) -> Derived {
        let kb = user_kb.unwrap_or(self.user_write_bytes as f64 / 1024.0);
        let per_kb = |n: u64| (kb > 0.0).then(|| round4(n as f64 / kb));
        Derived {
            write_amplification_gc: (self.host_programs > 0)
                .then(|| round4(self.flash_programs() as f64 / self.host_programs as f64)),
            write_amplification_total: (self.user_write_bytes > 0).then(|| {
                round4(
                    (self.flash_programs() * u64::from(page_size)) as f64
                        / self.user_write_bytes as f64,
                )
            }),
            per_kb_basis: if user_kb.is_some() {
                "request data".into()
            } else {
                "bytes written by the database".into()
            },
            user_kb: round4(kb),
            reads_per_kb: per_kb(self.flash_reads()),
            programs_per_kb: per_kb(self.flash_programs()),
            erases_per_kb: per_kb(self.erases),
            erased_pages_per_kb: per_kb(self.erases * u64::from(pages_per_block)),
        }
    }
}

/// Ratios derived from [`FlashCounters`]; `None` where the denominator is zero.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Derived {
    /// (host + GC programs) / host programs: the garbage collector's amplification.
    pub write_amplification_gc: Option<f64>,
    /// Bytes programmed on flash / bytes the database wrote: adds partial-page and
    /// read-modify-write costs to the garbage collector's.
    pub write_amplification_total: Option<f64>,
    /// What "per KB" divides by.
    pub per_kb_basis: String,
    pub user_kb: f64,
    pub reads_per_kb: Option<f64>,
    pub programs_per_kb: Option<f64>,
    /// Block erases per KB, and the same counted as erased pages (erases × pages per block).
    pub erases_per_kb: Option<f64>,
    pub erased_pages_per_kb: Option<f64>,
}

/// Distribution of erase counts over all physical blocks.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EraseDistribution {
    pub blocks: u64,
    pub min: u64,
    pub p50: u64,
    pub p99: u64,
    pub max: u64,
    pub mean: f64,
    pub stddev: f64,
}

impl EraseDistribution {
    pub fn of(counts: &[u32]) -> Self {
        if counts.is_empty() {
            return Self::default();
        }
        let mut v: Vec<u32> = counts.to_vec();
        v.sort_unstable();
        let n = v.len() as f64;
        let mean = v.iter().map(|&c| f64::from(c)).sum::<f64>() / n;
        let var = v
            .iter()
            .map(|&c| (f64::from(c) - mean).powi(2))
            .sum::<f64>()
            / n;
        let at = |q: f64| u64::from(v[((v.len() - 1) as f64 * q).round() as usize]);
        EraseDistribution {
            blocks: v.len() as u64,
            min: at(0.0),
            p50: at(0.5),
            p99: at(0.99),
            max: at(1.0),
            mean: round4(mean),
            stddev: round4(var.sqrt()),
        }
    }
}

pub fn round4(x: f64) -> f64 {
    (x * 10_000.0).round() / 10_000.0
}

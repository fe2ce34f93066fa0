//! Intel/AMD RAPL through powercap: `class/powercap/intel-rapl:N/energy_uj`, a µJ counter per
//! package that wraps at `max_energy_range_uj` (every few minutes to hours depending on the CPU
//! and its power). Only the top-level package zones are summed (their `:M` sub-zones — cores,
//! uncore, dram — are parts of or beside the package and would double-count). Since 2020 the
//! counters are readable by root only (a side-channel fix).

use super::Meter;
use std::path::{Path, PathBuf};

/// One package zone.
#[derive(Clone, Debug)]
pub struct Zone {
    pub name: String,
    pub energy: PathBuf,
    pub max_range_uj: u64,
}

/// The package zones under `sysfs_root`, or why there are none usable.
pub fn zones(sysfs_root: &Path) -> Result<Vec<Zone>, String> {
    let dir = sysfs_root.join("class/powercap");
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        format!(
            "no RAPL powercap ({}: {e}; Intel/AMD x86 only)",
            dir.display()
        )
    })?;
    let mut zones = Vec::new();
    let mut refused = None;
    let mut names: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    names.sort();
    for p in names {
        let file = p.file_name().and_then(|f| f.to_str()).unwrap_or_default();
        // Top-level zones only: `intel-rapl:0`, not `intel-rapl:0:1`.
        if !file.contains("rapl") || file.matches(':').count() != 1 {
            continue;
        }
        let energy = p.join("energy_uj");
        if let Err(e) = std::fs::read_to_string(&energy) {
            refused = Some(format!("{}: {e}", energy.display()));
            continue;
        }
        let max_range_uj = super::read_u64(&p.join("max_energy_range_uj")).unwrap_or(u64::MAX);
        let name = super::read_text(&p.join("name")).unwrap_or_else(|| file.to_string());
        if name == "psys" {
            continue; // platform domain: overlaps the packages
        }
        zones.push(Zone {
            name,
            energy,
            max_range_uj,
        });
    }
    if zones.is_empty() {
        return Err(refused.map_or_else(
            || format!("no RAPL package zone in {}", dir.display()),
            |r| format!("RAPL present but unreadable ({r}; reading energy_uj needs root)"),
        ));
    }
    Ok(zones)
}

/// Energy between two readings of a counter that wraps after `max_range`.
pub fn wrapping_delta(before: u64, after: u64, max_range: u64) -> u64 {
    if after >= before {
        after - before
    } else {
        max_range.saturating_sub(before) + after
    }
}

pub struct Rapl {
    zones: Vec<Zone>,
    last: Vec<Option<u64>>,
    total_uj: u64,
    error: Option<String>,
}

impl Rapl {
    pub fn open(sysfs_root: &Path) -> Result<Rapl, String> {
        let zones = zones(sysfs_root)?;
        Ok(Rapl {
            last: vec![None; zones.len()],
            zones,
            total_uj: 0,
            error: None,
        })
    }
}

impl Meter for Rapl {
    fn describe(&self) -> String {
        let names: Vec<&str> = self.zones.iter().map(|z| z.name.as_str()).collect();
        format!("rapl ({})", names.join(" + "))
    }

    fn period_ns(&self) -> u64 {
        // Often enough that no counter can wrap twice between readings.
        1_000_000_000
    }

    fn sample(&mut self, _now_ns: u64) {
        for (z, last) in self.zones.iter().zip(self.last.iter_mut()) {
            match super::read_u64(&z.energy) {
                Some(v) => {
                    if let Some(prev) = *last {
                        self.total_uj += wrapping_delta(prev, v, z.max_range_uj);
                    }
                    *last = Some(v);
                }
                None => {
                    self.error
                        .get_or_insert_with(|| format!("{} became unreadable", z.energy.display()));
                }
            }
        }
    }

    fn total_uj(&self) -> Result<u64, String> {
        match &self.error {
            Some(e) => Err(e.clone()),
            None => Ok(self.total_uj),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn counts_across_a_wrap_around() {
        let t = Tree::empty();
        let max = 262_143_328_850;
        t.rapl(0, max - 1_000_000, max);
        t.write("class/powercap/intel-rapl:0:0/energy_uj", "5"); // a sub-zone: ignored
        let mut m = Rapl::open(t.root()).unwrap();
        assert_eq!(m.describe(), "rapl (package-0)");
        m.sample(0);
        t.write(
            "class/powercap/intel-rapl:0/energy_uj",
            &(max - 200_000).to_string(),
        );
        m.sample(1);
        // The counter passes max_energy_range_uj and starts again from 0.
        t.write("class/powercap/intel-rapl:0/energy_uj", "300000");
        m.sample(2);
        assert_eq!(m.total_uj(), Ok(1_300_000));
    }

    #[test]
    fn sums_packages_and_explains_absence() {
        let t = Tree::empty();
        t.rapl(0, 100, 1_000);
        t.rapl(1, 200, 1_000);
        let mut m = Rapl::open(t.root()).unwrap();
        m.sample(0);
        t.rapl(0, 150, 1_000);
        t.rapl(1, 260, 1_000);
        m.sample(1);
        assert_eq!(m.total_uj(), Ok(110));
        let none = Tree::empty();
        assert!(Rapl::open(none.root())
            .err()
            .unwrap()
            .contains("no RAPL powercap"));
        assert_eq!(wrapping_delta(10, 20, 100), 10);
        assert_eq!(wrapping_delta(90, 5, 100), 15);
    }
}

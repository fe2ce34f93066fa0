//! CPU frequency scaling (Linux cpufreq): which frequency domains ("policies") the device has,
//! which governors and frequencies each offers, and what they are doing now. Android big.LITTLE
//! phones have one policy per cluster (e.g. CPUs 0-3 LITTLE, 4-7 big); most laptops have one
//! policy per CPU. Discovery reads `devices/system/cpu/cpufreq/policy*` and falls back to the
//! per-CPU `cpuN/cpufreq` directories of older kernels. Every path is under the sysfs root
//! ([`crate::platform::sysfs::sysfs_root`]), so tests point it at a fake tree.
//!
//! Submodules: [`request`] parses `--governor`, [`control`] sets it with read-back and
//! restore, [`restore`] makes the restore survive Ctrl-C, SIGTERM and panics, [`residency`]
//! turns `stats/time_in_state` into residency, and [`sampler`] polls `scaling_cur_freq`.

pub mod control;
pub mod join;
pub mod request;
pub mod residency;
pub mod restore;
pub mod sampler;

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One frequency domain: CPUs that always run at the same frequency.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Policy {
    /// `policy0`, or `cpu0` when the kernel has no policy directories.
    pub name: String,
    /// The directory holding `scaling_governor` etc.
    pub dir: PathBuf,
    /// CPUs in the domain (`related_cpus`), online or not.
    pub cpus: Vec<u32>,
    /// CPUs of the domain that are online (`affected_cpus`).
    pub online_cpus: Vec<u32>,
    pub driver: Option<String>,
    pub governor: Option<String>,
    pub available_governors: Vec<String>,
    /// kHz, ascending. From `scaling_available_frequencies`, else `stats/time_in_state`;
    /// empty when the driver picks frequencies freely (intel_pstate, amd-pstate).
    pub available_khz: Vec<u64>,
    pub cpuinfo_min_khz: Option<u64>,
    pub cpuinfo_max_khz: Option<u64>,
    pub scaling_min_khz: Option<u64>,
    pub scaling_max_khz: Option<u64>,
    pub cur_khz: Option<u64>,
    pub has_time_in_state: bool,
    /// `cpu_capacity` of the domain's first CPU (arm64: relative compute capacity, 1024 max).
    pub capacity: Option<u64>,
}

/// What the device offers.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Cpufreq {
    pub policies: Vec<Policy>,
    /// `policy directories`, `per-CPU directories`, or `none`.
    pub layout: String,
    /// Why no policy was found (only when `policies` is empty).
    pub missing: Option<String>,
}

impl Cpufreq {
    pub fn is_empty(&self) -> bool {
        self.policies.is_empty()
    }

    /// Label per policy: `LITTLE`, `big`, `prime`… when the maximum frequencies differ
    /// (heterogeneous clusters), otherwise `all` / `same`.
    pub fn cluster_labels(&self) -> Vec<String> {
        let mut maxes: Vec<u64> = self
            .policies
            .iter()
            .filter_map(|p| p.cpuinfo_max_khz.or(p.capacity))
            .collect();
        maxes.sort_unstable();
        maxes.dedup();
        self.policies
            .iter()
            .map(|p| {
                if maxes.len() < 2 {
                    return "symmetric".to_string();
                }
                let rank = p
                    .cpuinfo_max_khz
                    .or(p.capacity)
                    .and_then(|m| maxes.iter().position(|&x| x == m));
                match (rank, maxes.len()) {
                    (Some(0), _) => "LITTLE".into(),
                    (Some(1), 2) => "big".into(),
                    (Some(1), _) => "middle".into(),
                    (Some(r), n) if r + 1 == n => "prime".into(),
                    (Some(r), _) => format!("cluster{r}"),
                    (None, _) => "unknown".into(),
                }
            })
            .collect()
    }
}

/// Read `sysfs_root`'s cpufreq tree.
pub fn discover(sysfs_root: &Path) -> Cpufreq {
    let cpu_dir = sysfs_root.join("devices/system/cpu");
    let policy_dir = cpu_dir.join("cpufreq");
    let mut dirs = numbered_entries(&policy_dir, "policy")
        .into_iter()
        .map(|(n, d)| (format!("policy{n}"), d, Some(n)))
        .collect::<Vec<_>>();
    let layout = if dirs.is_empty() {
        // Older kernels: one cpufreq directory per CPU, shared CPUs symlinked together.
        let mut seen: Vec<Vec<u32>> = Vec::new();
        for (n, d) in numbered_entries(&cpu_dir, "cpu") {
            let dir = d.join("cpufreq");
            if !dir.is_dir() {
                continue;
            }
            let related = read_list(&dir.join("related_cpus")).unwrap_or_else(|| vec![n]);
            if seen.contains(&related) {
                continue;
            }
            seen.push(related);
            dirs.push((format!("cpu{n}"), dir, Some(n)));
        }
        if dirs.is_empty() {
            "none"
        } else {
            "per-CPU directories"
        }
    } else {
        "policy directories"
    };
    let policies: Vec<Policy> = dirs
        .into_iter()
        .map(|(name, dir, n)| read_policy(&cpu_dir, name, dir, n))
        .collect();
    let missing = policies.is_empty().then(|| {
        format!(
            "no cpufreq on this device ({} has no policy* entries and no cpu*/cpufreq directories; \
             virtual machines and containers usually hide frequency scaling)",
            policy_dir.display()
        )
    });
    Cpufreq {
        policies,
        layout: layout.to_string(),
        missing,
    }
}

fn read_policy(cpu_dir: &Path, name: String, dir: PathBuf, n: Option<u32>) -> Policy {
    let text = |f: &str| read_trimmed(&dir.join(f));
    let num = |f: &str| text(f).and_then(|v| v.parse::<u64>().ok());
    let cpus = read_list(&dir.join("related_cpus"))
        .or_else(|| n.map(|n| vec![n]))
        .unwrap_or_default();
    let online_cpus = read_list(&dir.join("affected_cpus")).unwrap_or_else(|| cpus.clone());
    let mut available_khz: Vec<u64> = text("scaling_available_frequencies")
        .map(|t| {
            t.split_whitespace()
                .filter_map(|v| v.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    let time_in_state = dir.join("stats/time_in_state");
    if available_khz.is_empty() {
        if let Ok(t) = std::fs::read_to_string(&time_in_state) {
            available_khz = residency::parse_time_in_state(&t)
                .into_iter()
                .map(|(f, _)| f)
                .collect();
        }
    }
    available_khz.sort_unstable();
    available_khz.dedup();
    let capacity = cpus
        .first()
        .and_then(|c| read_trimmed(&cpu_dir.join(format!("cpu{c}/cpu_capacity"))))
        .and_then(|v| v.parse().ok());
    Policy {
        name,
        cpus,
        online_cpus,
        driver: text("scaling_driver"),
        governor: text("scaling_governor"),
        available_governors: text("scaling_available_governors")
            .map(|t| t.split_whitespace().map(String::from).collect())
            .unwrap_or_default(),
        available_khz,
        cpuinfo_min_khz: num("cpuinfo_min_freq"),
        cpuinfo_max_khz: num("cpuinfo_max_freq"),
        scaling_min_khz: num("scaling_min_freq"),
        scaling_max_khz: num("scaling_max_freq"),
        cur_khz: num("scaling_cur_freq").or_else(|| num("cpuinfo_cur_freq")),
        has_time_in_state: time_in_state.is_file(),
        capacity,
        dir,
    }
}

/// Entries `PREFIXn` of `dir`, sorted by n.
fn numbered_entries(dir: &Path, prefix: &str) -> Vec<(u32, PathBuf)> {
    let mut out: Vec<(u32, PathBuf)> = std::fs::read_dir(dir)
        .map(|it| {
            it.flatten()
                .filter_map(|e| {
                    let name = e.file_name();
                    let n = name.to_str()?.strip_prefix(prefix)?.parse().ok()?;
                    Some((n, e.path()))
                })
                .collect()
        })
        .unwrap_or_default();
    out.sort_by_key(|(n, _)| *n);
    out
}

/// A sysfs attribute without its trailing newline; `None` when unreadable or empty.
pub fn read_trimmed(path: &Path) -> Option<String> {
    let t = std::fs::read_to_string(path).ok()?;
    let t = t.trim();
    (!t.is_empty()).then(|| t.to_string())
}

/// Write one sysfs attribute in place (never creating it: a missing attribute is an error, as
/// it would be in the real sysfs).
pub fn write_attr(path: &Path, value: &str) -> std::io::Result<()> {
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)?;
    f.write_all(value.as_bytes())
}

/// A CPU list attribute: `0 1 2 3` (cpufreq) or `0-3,6` (cpumask lists).
pub fn read_list(path: &Path) -> Option<Vec<u32>> {
    parse_cpu_list(&read_trimmed(path)?)
}

pub fn parse_cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut out = Vec::new();
    for part in text.split(|c: char| c == ',' || c.is_whitespace()) {
        if part.is_empty() {
            continue;
        }
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (u32, u32) = (a.parse().ok()?, b.parse().ok()?);
                out.extend(a..=b);
            }
            None => out.push(part.parse().ok()?),
        }
    }
    (!out.is_empty()).then_some(out)
}

/// `0-3` style text for a CPU list.
pub fn format_cpu_list(cpus: &[u32]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

/// Frequency in kHz as `1.80 GHz` / `600 MHz`.
pub fn khz_text(khz: u64) -> String {
    if khz >= 1_000_000 {
        format!("{:.2} GHz", khz as f64 / 1e6)
    } else {
        format!("{} MHz", khz / 1000)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::fake_sysfs as fake;

    #[test]
    fn discovers_big_little_policies() {
        let t = fake::Tree::big_little();
        let cf = discover(t.root());
        assert_eq!(cf.layout, "policy directories");
        assert_eq!(cf.policies.len(), 2);
        let (little, big) = (&cf.policies[0], &cf.policies[1]);
        assert_eq!(little.name, "policy0");
        assert_eq!(little.cpus, vec![0, 1, 2, 3]);
        assert_eq!(big.cpus, vec![4, 5, 6, 7]);
        assert_eq!(big.online_cpus, vec![4, 5]);
        assert_eq!(little.governor.as_deref(), Some("schedutil"));
        assert!(little
            .available_governors
            .contains(&"userspace".to_string()));
        assert_eq!(little.available_khz, vec![300_000, 900_000, 1_800_000]);
        assert_eq!(big.cpuinfo_max_khz, Some(2_400_000));
        assert_eq!(big.capacity, Some(1024));
        assert!(little.has_time_in_state);
        assert_eq!(cf.cluster_labels(), vec!["LITTLE", "big"]);
    }

    #[test]
    fn falls_back_to_per_cpu_directories_and_stats_frequencies() {
        let t = fake::Tree::per_cpu_only();
        let cf = discover(t.root());
        assert_eq!(cf.layout, "per-CPU directories");
        assert_eq!(cf.policies.len(), 1, "cpu1 shares cpu0's domain");
        assert_eq!(cf.policies[0].name, "cpu0");
        assert_eq!(cf.policies[0].cpus, vec![0, 1]);
        assert_eq!(cf.policies[0].available_khz, vec![500_000, 1_000_000]);
    }

    #[test]
    fn no_cpufreq_says_why() {
        let t = tempfile::tempdir().unwrap();
        let cf = discover(t.path());
        assert!(cf.is_empty());
        assert_eq!(cf.layout, "none");
        assert!(cf.missing.unwrap().contains("no cpufreq"));
    }

    #[test]
    fn cpu_lists() {
        assert_eq!(parse_cpu_list("0-3,6"), Some(vec![0, 1, 2, 3, 6]));
        assert_eq!(parse_cpu_list("4 5 6 7"), Some(vec![4, 5, 6, 7]));
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(format_cpu_list(&[0, 1, 2, 3, 6]), "0-3,6");
        assert_eq!(khz_text(1_800_000), "1.80 GHz");
        assert_eq!(khz_text(600_000), "600 MHz");
    }
}

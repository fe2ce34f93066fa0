//! A fake sysfs tree in a temporary directory, laid out like the kernel's: cpufreq policies
//! (a big.LITTLE phone, or an old per-CPU layout), RAPL powercap zones and a battery. Unit and
//! integration tests point `--sysfs-root` at it to exercise discovery, governor set/restore,
//! residency, sampling and energy on machines that have none of these; it is also handy for
//! trying `pocketbench doctor` on what a phone would look like.

use std::path::{Path, PathBuf};

/// A temporary directory standing in for `/sys`; removed on drop.
pub struct Tree {
    dir: tempfile::TempDir,
}

impl Default for Tree {
    fn default() -> Self {
        Tree {
            dir: tempfile::Builder::new()
                .prefix("pocketbench-sysfs-")
                .tempdir()
                .expect("creating a temporary directory"),
        }
    }
}

impl Tree {
    /// An empty tree (no cpufreq, no energy counters).
    pub fn empty() -> Self {
        Tree::default()
    }

    /// A phone-like tree: policy0 = CPUs 0-3 (LITTLE, 300 MHz – 1.8 GHz, all online),
    /// policy4 = CPUs 4-7 (big, 600 MHz – 2.4 GHz, 4-5 online); governor schedutil; both
    /// offer userspace and have `stats/time_in_state`.
    pub fn big_little() -> Self {
        let t = Tree::default();
        t.policy(
            0,
            &[0, 1, 2, 3],
            &[0, 1, 2, 3],
            &[300_000, 900_000, 1_800_000],
        );
        t.policy(4, &[4, 5, 6, 7], &[4, 5], &[600_000, 1_500_000, 2_400_000]);
        t.write("devices/system/cpu/cpu0/cpu_capacity", "446");
        t.write("devices/system/cpu/cpu4/cpu_capacity", "1024");
        t
    }

    /// An old kernel's layout: no policy directories, cpu0 and cpu1 share one domain, only
    /// `stats/time_in_state` lists the frequencies.
    pub fn per_cpu_only() -> Self {
        let t = Tree::default();
        for cpu in [0, 1] {
            let d = format!("devices/system/cpu/cpu{cpu}/cpufreq");
            t.write(&format!("{d}/related_cpus"), "0 1");
            t.write(&format!("{d}/scaling_governor"), "ondemand");
            t.write(
                &format!("{d}/scaling_available_governors"),
                "ondemand performance",
            );
            t.write(&format!("{d}/stats/time_in_state"), "500000 10\n1000000 20");
        }
        t
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root().join(rel)
    }

    /// Write (creating directories) one attribute, with the kernel's trailing newline.
    pub fn write(&self, rel: &str, value: &str) {
        let p = self.path(rel);
        if let Some(d) = p.parent() {
            std::fs::create_dir_all(d).expect("creating fake sysfs directory");
        }
        std::fs::write(&p, format!("{value}\n")).expect("writing fake sysfs attribute");
    }

    /// Read one attribute, trimmed.
    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.path(rel))
            .map(|s| s.trim().to_string())
            .unwrap_or_default()
    }

    /// One cpufreq policy directory `policyN`, starting in `schedutil` at the lowest frequency.
    pub fn policy(&self, n: u32, cpus: &[u32], online: &[u32], khz: &[u64]) {
        let list = |v: &[u32]| {
            v.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" ")
        };
        let d = format!("devices/system/cpu/cpufreq/policy{n}");
        let freqs = khz
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(" ");
        let (lo, hi) = (khz[0], khz[khz.len() - 1]);
        for (f, v) in [
            ("related_cpus", list(cpus)),
            ("affected_cpus", list(online)),
            ("scaling_driver", "fake-cpufreq".to_string()),
            ("scaling_governor", "schedutil".to_string()),
            (
                "scaling_available_governors",
                "performance powersave userspace ondemand schedutil".to_string(),
            ),
            ("scaling_available_frequencies", freqs),
            ("cpuinfo_min_freq", lo.to_string()),
            ("cpuinfo_max_freq", hi.to_string()),
            ("scaling_min_freq", lo.to_string()),
            ("scaling_max_freq", hi.to_string()),
            ("scaling_cur_freq", lo.to_string()),
            ("scaling_setspeed", "<unsupported>".to_string()),
            ("stats/total_trans", "0".to_string()),
        ] {
            self.write(&format!("{d}/{f}"), &v);
        }
        let tis: Vec<String> = khz.iter().map(|f| format!("{f} 0")).collect();
        self.write(&format!("{d}/stats/time_in_state"), &tis.join("\n"));
    }

    /// A RAPL package zone `intel-rapl:N` with its counter and wrap range, in µJ.
    pub fn rapl(&self, n: u32, energy_uj: u64, max_range_uj: u64) {
        let d = format!("class/powercap/intel-rapl:{n}");
        self.write(&format!("{d}/name"), &format!("package-{n}"));
        self.write(&format!("{d}/energy_uj"), &energy_uj.to_string());
        self.write(
            &format!("{d}/max_energy_range_uj"),
            &max_range_uj.to_string(),
        );
    }

    /// A battery `BAT0` in `status` with the given current (µA) and voltage (µV).
    pub fn battery(&self, status: &str, current_ua: i64, voltage_uv: i64) {
        let d = "class/power_supply/BAT0";
        self.write(&format!("{d}/type"), "Battery");
        self.write(&format!("{d}/status"), status);
        self.write(&format!("{d}/current_now"), &current_ua.to_string());
        self.write(&format!("{d}/voltage_now"), &voltage_uv.to_string());
    }
}

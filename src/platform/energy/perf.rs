//! The perf `power/energy-pkg` event: the same RAPL package counter as powercap, read through
//! `perf_event_open(2)` (system-wide, one CPU per package from the PMU's `cpumask`). It works
//! where powercap is absent or root-only but perf is allowed (root, CAP_PERFMON, or
//! `kernel.perf_event_paranoid` ≤ 0). The PMU's type, the event's config and its scale (Joules
//! per count) are read from `bus/event_source/devices/power/` under the sysfs root; the counter
//! is 64 bits wide, so it does not wrap within a run.

use super::Meter;
use std::path::Path;

/// How to open the event, as the PMU describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct EventSpec {
    pub pmu_type: u32,
    pub config: u64,
    /// Joules per count.
    pub scale: f64,
    pub cpus: Vec<u32>,
}

/// Read the `power` PMU's description of `energy-pkg` under `sysfs_root`.
pub fn event_spec(sysfs_root: &Path) -> Result<EventSpec, String> {
    let dir = sysfs_root.join("bus/event_source/devices/power");
    let pmu_type = super::read_u64(&dir.join("type")).ok_or_else(|| {
        format!(
            "no perf power PMU ({} missing; RAPL through perf is x86 only)",
            dir.display()
        )
    })? as u32;
    let ev = super::read_text(&dir.join("events/energy-pkg"))
        .ok_or_else(|| format!("the power PMU has no energy-pkg event ({})", dir.display()))?;
    let config = parse_config(&ev).ok_or_else(|| format!("energy-pkg: cannot parse `{ev}`"))?;
    let scale = super::read_text(&dir.join("events/energy-pkg.scale"))
        .and_then(|s| s.parse::<f64>().ok())
        .unwrap_or(2.328_306_436_538_696_3e-10); // 2^-32 J, the usual RAPL unit
    let cpus = crate::platform::cpufreq::read_list(&dir.join("cpumask")).unwrap_or_else(|| vec![0]);
    Ok(EventSpec {
        pmu_type,
        config,
        scale,
        cpus,
    })
}

/// `event=0x02` → 2.
fn parse_config(text: &str) -> Option<u64> {
    let v = text
        .split(',')
        .find_map(|kv| kv.trim().strip_prefix("event="))?;
    match v.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => v.parse().ok(),
    }
}

/// The first 64 bytes of `struct perf_event_attr` (PERF_ATTR_SIZE_VER0), all we need.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    type_: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    config1: u64,
}

pub struct PerfEnergy {
    spec: EventSpec,
    fds: Vec<std::fs::File>,
    first: Option<u64>,
    last: u64,
    error: Option<String>,
}

impl PerfEnergy {
    pub fn open(sysfs_root: &Path) -> Result<PerfEnergy, String> {
        use std::os::fd::FromRawFd;
        let spec = event_spec(sysfs_root)?;
        let mut fds = Vec::new();
        for &cpu in &spec.cpus {
            let attr = PerfEventAttr {
                type_: spec.pmu_type,
                size: std::mem::size_of::<PerfEventAttr>() as u32,
                config: spec.config,
                ..Default::default()
            };
            // SAFETY: valid attr pointer; pid -1 + a CPU is a system-wide counting event.
            let fd = unsafe {
                libc::syscall(
                    libc::SYS_perf_event_open,
                    &attr as *const PerfEventAttr,
                    -1i32,
                    cpu as i32,
                    -1i32,
                    0u64,
                )
            };
            if fd < 0 {
                let e = std::io::Error::last_os_error();
                return Err(format!(
                    "perf_event_open(power/energy-pkg, cpu {cpu}): {e} (needs root or \
                     kernel.perf_event_paranoid <= 0)"
                ));
            }
            // SAFETY: a fresh descriptor we own.
            fds.push(unsafe { std::fs::File::from_raw_fd(fd as i32) });
        }
        Ok(PerfEnergy {
            spec,
            fds,
            first: None,
            last: 0,
            error: None,
        })
    }

    fn read(&self) -> std::io::Result<u64> {
        use std::io::Read;
        let mut sum = 0u64;
        for mut f in &self.fds {
            let mut buf = [0u8; 8];
            f.read_exact(&mut buf)?;
            sum = sum.wrapping_add(u64::from_ne_bytes(buf));
        }
        Ok(sum)
    }
}

impl Meter for PerfEnergy {
    fn describe(&self) -> String {
        "perf power/energy-pkg".into()
    }

    fn period_ns(&self) -> u64 {
        1_000_000_000
    }

    fn sample(&mut self, _now_ns: u64) {
        match self.read() {
            Ok(v) => {
                self.first.get_or_insert(v);
                self.last = v;
            }
            Err(e) => {
                self.error
                    .get_or_insert_with(|| format!("reading the perf counter: {e}"));
            }
        }
    }

    fn total_uj(&self) -> Result<u64, String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let counts = self.last.wrapping_sub(self.first.unwrap_or(self.last));
        Ok((counts as f64 * self.spec.scale * 1e6).round() as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::fake_sysfs::Tree;

    #[test]
    fn reads_the_pmu_description() {
        let t = Tree::empty();
        let d = "bus/event_source/devices/power";
        t.write(&format!("{d}/type"), "23");
        t.write(&format!("{d}/events/energy-pkg"), "event=0x02");
        t.write(
            &format!("{d}/events/energy-pkg.scale"),
            "2.3283064365386962890625e-10",
        );
        t.write(&format!("{d}/cpumask"), "0,8");
        let s = event_spec(t.root()).unwrap();
        assert_eq!((s.pmu_type, s.config, s.cpus.clone()), (23, 2, vec![0, 8]));
        assert!((s.scale - 2.3283064365386963e-10).abs() < 1e-20);
        assert_eq!(std::mem::size_of::<PerfEventAttr>(), 64);
        let none = Tree::empty();
        assert!(event_spec(none.root())
            .err()
            .unwrap()
            .contains("no perf power PMU"));
    }
}

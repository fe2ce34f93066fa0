//! The facts about the device that every result carries, so numbers from different devices can
//! be compared and explained: host, kernel, CPU, memory, and the state of the knobs that change
//! the answer (CPU governor, frequency, energy counters). A fact the device does not expose is
//! recorded as unavailable with the reason, never guessed.

use super::sysfs::sysfs_root;
use serde::{Deserialize, Serialize};

/// A fact that is either observed or unavailable for a stated reason.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(untagged)]
pub enum Observed {
    Value { value: String, how: String },
    Unavailable { unavailable: String },
}

impl Observed {
    /// One line for terminal output.
    pub fn text(&self) -> String {
        match self {
            Observed::Value { value, how } => format!("{value} ({how})"),
            Observed::Unavailable { unavailable } => format!("unavailable: {unavailable}"),
        }
    }
}

#[derive(Clone, Debug, Serialize)]
pub struct Environment {
    pub tool_version: String,
    pub host: String,
    pub os: String,
    pub kernel: String,
    pub arch: String,
    pub cpu_model: String,
    pub cpus: usize,
    pub mem_total_kib: Option<u64>,
    /// Governor of CPU 0's cpufreq policy as observed (pocketbench did not set it).
    pub governor: Observed,
    /// Frequency residency during the run (needs cpufreq statistics).
    pub cpu_frequency: Observed,
    pub energy: Observed,
    /// Timer slack of the reporting thread (the replay thread's own is in the replay report).
    pub timer_slack_ns: Option<u64>,
    pub clock_resolution_ns: u64,
}

impl Environment {
    pub fn capture() -> Self {
        let uts = uname();
        Environment {
            tool_version: crate::TOOL_VERSION.to_string(),
            host: uts.0,
            os: std::env::consts::OS.to_string(),
            kernel: uts.1,
            arch: std::env::consts::ARCH.to_string(),
            cpu_model: cpu_model(),
            cpus: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1),
            mem_total_kib: mem_total_kib(),
            governor: governor(),
            cpu_frequency: cpu_frequency(),
            energy: energy(),
            timer_slack_ns: crate::platform::clock::timer_slack_ns(),
            clock_resolution_ns: crate::platform::clock::mono_resolution_ns(),
        }
    }
}

fn uname() -> (String, String) {
    // SAFETY: zeroed utsname is a valid out-parameter for uname(2).
    let mut u: libc::utsname = unsafe { std::mem::zeroed() };
    // SAFETY: valid pointer.
    if unsafe { libc::uname(&mut u) } != 0 {
        return ("unknown".into(), "unknown".into());
    }
    let text = |f: &[libc::c_char]| {
        let bytes: Vec<u8> = f
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        String::from_utf8_lossy(&bytes).into_owned()
    };
    (
        text(&u.nodename),
        format!("{} {}", text(&u.release), text(&u.version)),
    )
}

fn cpu_model() -> String {
    let info = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    ["model name", "Hardware", "Processor", "cpu model"]
        .iter()
        .find_map(|key| {
            info.lines()
                .find(|l| l.starts_with(key))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into())
}

fn mem_total_kib() -> Option<u64> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = info.lines().find(|l| l.starts_with("MemTotal:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// The governor of every cpufreq policy, as found (see `platform::cpufreq`).
fn governor() -> Observed {
    let cf = crate::platform::cpufreq::discover(&sysfs_root());
    if let Some(missing) = cf.missing {
        return Observed::Unavailable {
            unavailable: format!("{missing}; frequency scaling cannot be observed or controlled"),
        };
    }
    let govs: Vec<String> = cf
        .policies
        .iter()
        .map(|p| format!("{} {}", p.name, p.governor.as_deref().unwrap_or("unknown")))
        .collect();
    Observed::Value {
        value: cf.policies[0]
            .governor
            .clone()
            .unwrap_or_else(|| "unknown".into()),
        how: format!("observed: {}", govs.join(", ")),
    }
}

/// How frequency residency can be observed here.
fn cpu_frequency() -> Observed {
    let cf = crate::platform::cpufreq::discover(&sysfs_root());
    if let Some(missing) = cf.missing {
        return Observed::Unavailable {
            unavailable: format!("{missing}; frequency residency not recorded"),
        };
    }
    let stats = cf.policies.iter().all(|p| p.has_time_in_state);
    let cur = cf.policies.iter().any(|p| p.cur_khz.is_some());
    match (stats, cur) {
        (true, _) => Observed::Value {
            value: "time_in_state".into(),
            how: "stats/time_in_state on every policy".into(),
        },
        (false, true) => Observed::Value {
            value: "scaling_cur_freq".into(),
            how: "sampled (no stats/time_in_state)".into(),
        },
        _ => Observed::Unavailable {
            unavailable: "cpufreq has neither stats/time_in_state nor scaling_cur_freq".into(),
        },
    }
}

/// The energy source `--energy auto` would use here.
fn energy() -> Observed {
    match crate::platform::energy::open(crate::platform::energy::Choice::Auto, &sysfs_root()) {
        Ok(m) => Observed::Value {
            value: m.describe(),
            how: "best source present (see the run's `energy` section)".into(),
        },
        Err(e) => Observed::Unavailable {
            unavailable: format!("{e}; energy not measured"),
        },
    }
}

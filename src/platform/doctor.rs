//! `pocketbench doctor`: a survey of what this device offers for measurement and what it
//! lacks, each finding with what it means for results — cpufreq and its governors, permission
//! to set them, frequency statistics, energy sources, O_DIRECT on the results and data
//! directories, drop_caches permission, schedstat, clock resolution, timer slack, and the
//! measured overshoot of real sleeps. Nothing here changes the device.

use crate::platform::clock::{
    mono_ns, mono_resolution_ns, set_timer_slack, sleep_until, timer_slack_ns,
};
use crate::platform::cpufreq::{self, control, khz_text, restore, Cpufreq};
use crate::platform::energy;
use crate::stats::{LatencyHistogram, LatencySummary};
use serde::Serialize;
use std::path::{Path, PathBuf};

#[derive(Clone, Copy, Debug, Serialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Available and usable.
    Ok,
    /// Present with a limitation.
    Limited,
    /// Not available here.
    Missing,
}

/// One finding.
#[derive(Clone, Debug, Serialize)]
pub struct Check {
    pub area: &'static str,
    pub status: Status,
    /// What was found (or why it is missing).
    pub found: String,
    /// What it means for results.
    pub meaning: String,
}

#[derive(Clone, Debug, Serialize)]
pub struct Report {
    pub sysfs_root: PathBuf,
    pub checks: Vec<Check>,
    pub cpufreq: Cpufreq,
    pub sleep_overshoot_us: LatencySummary,
}

/// Where runs would put their files.
pub struct Options {
    pub results: PathBuf,
    pub data_dir: PathBuf,
}

pub fn survey(opts: &Options) -> Report {
    let root = crate::platform::sysfs::sysfs_root();
    let cf = cpufreq::discover(&root);
    let overshoot = sleep_overshoot(200, 1_000_000);
    let mut checks = vec![clock(), timer_slack(), sleeps(&overshoot)];
    checks.extend(cpufreq_checks(&cf, &root));
    checks.push(energy_check(&root));
    checks.push(o_direct_check("O_DIRECT (results)", &opts.results));
    checks.push(o_direct_check("O_DIRECT (data)", &opts.data_dir));
    checks.push(drop_caches());
    checks.push(schedstat());
    Report {
        sysfs_root: root,
        checks,
        cpufreq: cf,
        sleep_overshoot_us: overshoot,
    }
}

fn check(area: &'static str, status: Status, found: String, meaning: &str) -> Check {
    Check {
        area,
        status,
        found,
        meaning: meaning.to_string(),
    }
}

fn clock() -> Check {
    let res = mono_resolution_ns();
    let (mut step, t0) = (u64::MAX, mono_ns());
    let mut prev = t0;
    let reads = 10_000u64;
    for _ in 0..reads {
        let now = mono_ns();
        if now > prev {
            step = step.min(now - prev);
        }
        prev = now;
    }
    let per_read = (prev - t0) / reads;
    let status = if res <= 1_000 {
        Status::Ok
    } else {
        Status::Limited
    };
    check(
        "clock",
        status,
        format!(
            "CLOCK_MONOTONIC resolution {res} ns; smallest observed step {step} ns; {per_read} ns per reading"
        ),
        if status == Status::Ok {
            "latencies are timed to the nanosecond; each operation's two clock readings are part of the harness overhead reported beside every result"
        } else {
            "a coarse clock: latencies below a few resolution steps are quantised; compare medians, not single operations"
        },
    )
}

fn timer_slack() -> Check {
    let current = timer_slack_ns();
    let lowered = std::thread::spawn(|| set_timer_slack(1))
        .join()
        .ok()
        .flatten();
    let ok = lowered == Some(1);
    check(
        "timer slack",
        if ok { Status::Ok } else { Status::Limited },
        format!(
            "{} ns for this thread; lowering a thread's slack to 1 ns {}",
            current.map_or("unknown".into(), |v| v.to_string()),
            if ok { "works" } else { "did not take effect" }
        ),
        if ok {
            "the replay thread runs with 1 ns slack, so sleeps end near their deadline instead of up to 50 µs late"
        } else {
            "sleeps may end up to the default slack (50 µs) late; think-time delays are longer than requested (the overshoot is recorded per sleep)"
        },
    )
}

/// Overshoot (µs) of `n` real sleeps of `len_ns` each, at 1 ns timer slack.
pub fn sleep_overshoot(n: u32, len_ns: u64) -> LatencySummary {
    std::thread::spawn(move || {
        set_timer_slack(1);
        let mut h = LatencyHistogram::default();
        for _ in 0..n {
            let due = mono_ns() + len_ns;
            sleep_until(due);
            h.record(mono_ns().saturating_sub(due));
        }
        h.summary()
    })
    .join()
    .unwrap_or_default()
}

fn sleeps(o: &LatencySummary) -> Check {
    let status = if o.p99 < 200.0 {
        Status::Ok
    } else {
        Status::Limited
    };
    check(
        "sleep overshoot",
        status,
        format!(
            "200 sleeps of 1 ms overshot by p50 {:.1} µs, p90 {:.1} µs, p99 {:.1} µs, max {:.1} µs",
            o.p50, o.p90, o.p99, o.max
        ),
        if status == Status::Ok {
            "think-time delays are honoured to within tens of microseconds"
        } else {
            "sleeps wake late (a busy or virtualised host, or deep idle states): delays below a millisecond are not what was asked; each sleep's real length is recorded"
        },
    )
}

fn cpufreq_checks(cf: &Cpufreq, root: &Path) -> Vec<Check> {
    let mut out = Vec::new();
    if let Some(missing) = &cf.missing {
        out.push(check(
            "cpufreq",
            Status::Missing,
            missing.clone(),
            "frequency is chosen by firmware or the hypervisor and cannot be seen: --governor runs proceed as \"observed, control unavailable\", frequency is null, and governor effects cannot be studied on this machine",
        ));
        out.push(check(
            "governor control",
            Status::Missing,
            "nothing to control (no cpufreq)".into(),
            "governor studies need a device with cpufreq: a phone (rooted), a Raspberry Pi or a bare-metal Linux machine",
        ));
        out.push(check(
            "frequency stats",
            Status::Missing,
            "no time_in_state, no scaling_cur_freq (no cpufreq)".into(),
            "no frequency residency and no per-operation frequency in results",
        ));
        return out;
    }
    let labels = cf.cluster_labels();
    let desc: Vec<String> = cf
        .policies
        .iter()
        .zip(&labels)
        .map(|(p, l)| {
            let range = match (p.cpuinfo_min_khz, p.cpuinfo_max_khz) {
                (Some(a), Some(b)) => format!("{}–{}", khz_text(a), khz_text(b)),
                _ => "range unknown".into(),
            };
            format!(
                "{} cpus {} ({} online, {l}) {} via {}, {range}, {} steps, governors: {}",
                p.name,
                cpufreq::format_cpu_list(&p.cpus),
                p.online_cpus.len(),
                p.governor.as_deref().unwrap_or("?"),
                p.driver.as_deref().unwrap_or("?"),
                p.available_khz.len(),
                p.available_governors.join(" ")
            )
        })
        .collect();
    out.push(check(
        "cpufreq",
        Status::Ok,
        format!("{} polic(ies), {}: {}", cf.policies.len(), cf.layout, desc.join("; ")),
        if labels.iter().any(|l| l == "big") {
            "heterogeneous clusters (big.LITTLE): the scheduler moves the replay between clusters; --governor applies to every policy and per-operation frequency follows the replay thread's CPU"
        } else {
            "frequency scaling is visible; --governor applies to every policy"
        },
    ));
    let refused = cf.policies.iter().find_map(|p| {
        let f = p.dir.join("scaling_governor");
        std::fs::OpenOptions::new()
            .write(true)
            .open(&f)
            .err()
            .map(|e| format!("{}: {}", f.display(), control::refusal(&e)))
    });
    let leftover = restore::leftover(root).map(|j| {
        format!(
            "; an interrupted run (pid {}) left {} file(s) changed — `pocketbench doctor --restore` puts them back",
            j.pid,
            j.files.len()
        )
    });
    out.push(match refused {
        None => check(
            "governor control",
            Status::Ok,
            format!("scaling_governor is writable{}", leftover.unwrap_or_default()),
            "--governor sets, verifies and restores the governor: results say \"set\"",
        ),
        Some(why) => check(
            "governor control",
            Status::Missing,
            format!("{why}{}", leftover.unwrap_or_default()),
            "--governor runs still complete, recorded as \"observed <governor>, control unavailable\"; run as root to compare governors",
        ),
    });
    let with_stats = cf.policies.iter().filter(|p| p.has_time_in_state).count();
    let with_cur = cf.policies.iter().filter(|p| p.cur_khz.is_some()).count();
    let n = cf.policies.len();
    out.push(if with_stats == n {
        check(
            "frequency stats",
            Status::Ok,
            format!("stats/time_in_state on all {n} policies; scaling_cur_freq on {with_cur}"),
            "exact residency per frequency (10 ms ticks) per run; the sampler adds per-operation frequency at its own, reported, cost",
        )
    } else if with_cur > 0 {
        check(
            "frequency stats",
            Status::Limited,
            format!("time_in_state on {with_stats} of {n} policies; scaling_cur_freq on {with_cur}"),
            "residency is estimated by the sampling thread (its CPU cost is reported); choose its period with --freq-sample",
        )
    } else {
        check(
            "frequency stats",
            Status::Missing,
            "neither time_in_state nor scaling_cur_freq is readable".into(),
            "frequency during runs is unknown",
        )
    });
    out
}

fn energy_check(root: &Path) -> Check {
    let survey = energy::survey(root);
    let found: Vec<String> = survey
        .iter()
        .map(|(name, r)| match r {
            Ok(d) => format!("{name}: {d}"),
            Err(e) => format!("{name}: {e}"),
        })
        .collect();
    let paranoid = std::fs::read_to_string("/proc/sys/kernel/perf_event_paranoid")
        .map(|s| format!("; perf_event_paranoid {}", s.trim()))
        .unwrap_or_default();
    let best = survey.iter().find(|(_, r)| r.is_ok());
    match best {
        Some((name, _)) => check(
            "energy",
            if *name == "battery" { Status::Limited } else { Status::Ok },
            format!("{}{paranoid}", found.join("; ")),
            if *name == "battery" {
                "energy comes from the battery gauge, sampled every 100 ms: coarse (gauges update slowly), valid only while discharging; compare long runs"
            } else {
                "energy per run and net of an idle baseline, from the package counter (CPU package only, not the whole device)"
            },
        ),
        None => check(
            "energy",
            Status::Missing,
            format!("{}{paranoid}", found.join("; ")),
            "energy is null in results unless you record an external power meter and import its CSV (pocketbench energy import); use --energy meter so runs record the baseline window",
        ),
    }
}

/// Whether files in the directory of `path` (or `path` itself, if a directory) accept O_DIRECT.
pub fn o_direct(path: &Path) -> Result<PathBuf, String> {
    use std::io::Write;
    use std::os::unix::fs::OpenOptionsExt;
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else {
        path.parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."))
            .to_path_buf()
    };
    let probe = dir.join(format!(".pocketbench-odirect-{}", std::process::id()));
    #[repr(align(4096))]
    struct Block([u8; 4096]);
    let block = Box::new(Block([0u8; 4096]));
    let result = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .custom_flags(libc::O_DIRECT)
        .open(&probe)
        .and_then(|mut f| f.write_all(&block.0));
    let _ = std::fs::remove_file(&probe);
    let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
    result
        .map(|_| dir.clone())
        .map_err(|e| format!("{}: {e}", dir.display()))
}

fn o_direct_check(area: &'static str, path: &Path) -> Check {
    match o_direct(path) {
        Ok(dir) => check(
            area,
            Status::Ok,
            format!("{} accepts O_DIRECT (4 KiB aligned write)", dir.display()),
            "storage benchmarks can bypass the page cache here",
        ),
        Err(e) => check(
            area,
            Status::Missing,
            format!("O_DIRECT refused: {e}"),
            "this file system (tmpfs, some FUSE/overlay mounts) has no direct I/O: storage numbers measured here include the page cache; choose another directory (--dir / --results)",
        ),
    }
}

fn drop_caches() -> Check {
    match std::fs::OpenOptions::new()
        .write(true)
        .open("/proc/sys/vm/drop_caches")
    {
        Ok(_) => check(
            "drop_caches",
            Status::Ok,
            "/proc/sys/vm/drop_caches is writable".into(),
            "--drop-caches can empty the whole page cache before a replay (a truly cold start)",
        ),
        Err(e) => check(
            "drop_caches",
            Status::Missing,
            format!("/proc/sys/vm/drop_caches: {}", control::refusal(&e)),
            "cold runs evict only the database's own files (posix_fadvise); other cached data stays, as it would on a phone",
        ),
    }
}

fn schedstat() -> Check {
    match std::fs::read_to_string("/proc/thread-self/schedstat") {
        Ok(t) if t.split_whitespace().count() >= 3 => check(
            "schedstat",
            Status::Ok,
            format!("/proc/thread-self/schedstat: {}", t.trim()),
            "run-queue delay (time runnable but waiting for a CPU) is recorded per run",
        ),
        Ok(t) => check(
            "schedstat",
            Status::Limited,
            format!("unexpected format `{}`", t.trim()),
            "run-queue delay is not recorded",
        ),
        Err(e) => check(
            "schedstat",
            Status::Missing,
            format!("/proc/thread-self/schedstat: {e}"),
            "run-queue delay is null in results (kernel without CONFIG_SCHED_INFO)",
        ),
    }
}

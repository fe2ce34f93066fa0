//! "Is my governor working?": given a workload class (or a trace of the user's own app) and
//! the current governor and load, run the short comparison the question needs — the same
//! operations under the current governor and each alternative the device offers, interleaved
//! across repeats — or read runs already in the results store, and judge the outcome in plain
//! words ([`judge`]). Where the governor cannot be controlled it says so, runs what it can (the
//! workload with and without its think time), and says what it could and could not determine.
//! `render` turns the answer into text; the `diagnose` command only parses and prints.

mod candidate;
pub mod judge;
mod render;

use crate::error::{Error, Result};
use crate::output::progress;
use crate::platform::cpufreq::{self, request::GovernorRequest};
use crate::platform::session::PlatformRequest;
use crate::platform::sysfs::sysfs_root;
use crate::results::{self, store::Store, summary::RunSummary};
use crate::run::{self, RunRequest, WorkloadChoice};
use crate::workload::delay::DelayModel;
use crate::workload::Overrides;
use candidate::candidate;
use judge::{judge, Candidate, Thresholds, Verdict};
pub use render::render;
use serde::Serialize;
use std::path::PathBuf;

/// What to diagnose: the parsed `diagnose` flags.
#[derive(Clone, Debug)]
pub struct Request {
    /// A workload class or any workload `run` accepts (ignored with `trace`).
    pub workload: String,
    pub trace: Option<PathBuf>,
    pub ops: u64,
    pub records: u64,
    pub delay: Option<DelayModel>,
    pub engine: String,
    /// Governors to compare; empty: the current one and every alternative offered.
    pub governors: Vec<String>,
    pub repeats: u32,
    /// Judge stored runs instead of measuring: `all` or comma-separated ids.
    pub from_results: Option<String>,
    /// The governor in use now, when the device cannot tell.
    pub current: Option<String>,
    pub thresholds: Thresholds,
    pub results: PathBuf,
    /// Background load and observation of every run (its governor is set per candidate).
    pub platform: PlatformRequest,
    /// `--background` and `--background-cmd` as given, for the load line.
    pub background: Option<String>,
    pub background_cmd: Option<String>,
}

/// Measure (or read) and judge.
pub fn diagnose(req: &Request) -> Result<Diagnosis> {
    match &req.from_results {
        Some(sel) => from_store(req, sel),
        None => measure(req),
    }
}

/// The answer: the candidates measured (or read), the verdict when governors could be
/// compared, and what could and could not be determined.
#[derive(Serialize)]
pub struct Diagnosis {
    pub workload: String,
    pub load: String,
    pub control: String,
    pub candidates: Vec<Candidate>,
    pub verdict: Option<Verdict>,
    pub could_determine: Vec<String>,
    pub could_not_determine: Vec<String>,
}

/// Workload classes of the follow-up study, as built-in workloads.
pub fn class(name: &str) -> &str {
    match name {
        "read-heavy" => "ycsb-c",
        "read-mostly" => "ycsb-b",
        "update-heavy" => "ycsb-a",
        "scan" => "ycsb-e",
        "read-modify-write" => "ycsb-f",
        "sql" => "pocketdata-ia",
        other => other,
    }
}

/// Share of CPU time busy across all CPUs over half a second (from /proc/stat).
fn system_load() -> Option<f64> {
    let read = || -> Option<(u64, u64)> {
        let s = std::fs::read_to_string("/proc/stat").ok()?;
        let v: Vec<u64> = s
            .lines()
            .next()?
            .split_whitespace()
            .skip(1)
            .filter_map(|x| x.parse().ok())
            .collect();
        let idle = v.get(3)? + v.get(4).unwrap_or(&0);
        Some((v.iter().sum(), idle))
    };
    let (t0, i0) = read()?;
    std::thread::sleep(std::time::Duration::from_millis(500));
    let (t1, i1) = read()?;
    let total = t1.saturating_sub(t0);
    (total > 0).then(|| 1.0 - (i1.saturating_sub(i0)) as f64 / total as f64)
}

fn load_text(req: &Request) -> String {
    let bg = match (&req.background, &req.background_cmd) {
        (Some(b), _) => format!("; every run under --background {b}"),
        (None, Some(c)) => format!("; every run beside `{c}`"),
        _ => String::new(),
    };
    match system_load() {
        Some(l) if l < 0.15 => format!(
            "device idle before the runs ({:.0}% CPU busy){bg}",
            l * 100.0
        ),
        Some(l) => format!("device already loaded ({:.0}% CPU busy){bg}", l * 100.0),
        None => format!("system load unknown (/proc/stat unreadable){bg}"),
    }
}

/// One run of the diagnosis workload; returns its stored summary.
fn run_one(
    req: &Request,
    governor: Option<GovernorRequest>,
    delay: Option<DelayModel>,
) -> Result<RunSummary> {
    let platform = PlatformRequest {
        governor,
        ..req.platform.clone()
    };
    let workload = match &req.trace {
        Some(p) => WorkloadChoice::Trace(p.clone()),
        None => WorkloadChoice::Spec {
            spec: class(&req.workload).to_string(),
            overrides: Overrides {
                records: Some(req.records),
                ops: Some(req.ops),
                ..Default::default()
            },
        },
    };
    let run_req = RunRequest {
        delay,
        platform,
        ..RunRequest::plain(workload, &req.engine)
    };
    let prepared = run::prepare(&run_req)?;
    let mut store = Store::open(&req.results)?;
    let out = run::execute(&run_req, prepared)?;
    results::record(&out, &mut store, None, true)
}

fn measure(req: &Request) -> Result<Diagnosis> {
    let cf = cpufreq::discover(&sysfs_root());
    let current = cf
        .policies
        .first()
        .and_then(|p| p.governor.clone())
        .or_else(|| req.current.clone());
    let workload = req.trace.as_ref().map_or_else(
        || class(&req.workload).to_string(),
        |p| p.display().to_string(),
    );
    let load = load_text(req);
    let delay = req.delay.clone();
    let writable = cf.policies.iter().all(|p| {
        std::fs::OpenOptions::new()
            .write(true)
            .open(p.dir.join("scaling_governor"))
            .is_ok()
    });
    let control_reason = match (&cf.missing, writable) {
        (Some(m), _) => Some(m.clone()),
        (None, false) => Some("cpufreq is present but not writable (run as root)".into()),
        _ => None,
    };
    if let Some(reason) = control_reason {
        return uncontrolled(req, workload, load, reason, current, delay);
    }
    let current = current.unwrap_or_else(|| "unknown".into());
    let mut govs: Vec<String> = if req.governors.is_empty() {
        let offered = &cf.policies[0].available_governors;
        let mut v = vec![current.clone()];
        for g in [
            "performance",
            "powersave",
            "schedutil",
            "interactive",
            "ondemand",
            "conservative",
        ] {
            if offered.iter().any(|o| o == g) && g != current {
                v.push(g.to_string());
            }
        }
        if offered.iter().any(|o| o == "userspace") {
            v.push("fixed:50%".into());
        }
        v
    } else {
        req.governors.clone()
    };
    govs.dedup();
    let requests = govs
        .iter()
        .map(|g| {
            GovernorRequest::parse(g).map_err(|e| Error::input(format!("--governors {g}: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut runs: Vec<Vec<RunSummary>> = vec![Vec::new(); govs.len()];
    for r in 0..req.repeats.max(1) {
        for (i, g) in requests.iter().enumerate() {
            progress::phase(&format!(
                "diagnose: {} (repeat {} of {})",
                g.label(),
                r + 1,
                req.repeats.max(1)
            ));
            runs[i].push(run_one(req, Some(g.clone()), delay.clone())?);
        }
    }
    let candidates: Vec<Candidate> = govs
        .iter()
        .zip(&runs)
        .map(|(g, r)| candidate(g, r))
        .collect();
    let cur = req
        .current
        .as_ref()
        .and_then(|c| govs.iter().position(|g| g == c))
        .unwrap_or(0);
    let verdict = judge(&candidates, cur, &req.thresholds);
    Ok(Diagnosis {
        workload,
        load,
        control: format!(
            "governors set by pocketbench and restored after each run ({})",
            govs.join(", ")
        ),
        candidates,
        verdict: Some(verdict),
        could_determine: Vec::new(),
        could_not_determine: Vec::new(),
    })
}

/// No governor control: measure what can be measured and say what cannot.
fn uncontrolled(
    req: &Request,
    workload: String,
    load: String,
    reason: String,
    current: Option<String>,
    delay: Option<DelayModel>,
) -> Result<Diagnosis> {
    let gov = current.clone().unwrap_or_else(|| "no cpufreq".into());
    progress::phase("diagnose: your workload with its think time (governor as found)");
    let think = run_one(req, None, delay)?;
    progress::phase("diagnose: the same operations without think time");
    let busy = run_one(req, None, Some(DelayModel::parse("zero")?))?;
    let a = candidate(
        &format!("as found ({gov}), with think time"),
        std::slice::from_ref(&think),
    );
    let b = candidate(
        &format!("as found ({gov}), no think time"),
        std::slice::from_ref(&busy),
    );
    let mut could = vec![format!(
        "Your workload here: {:.1} ops/s, median {:.1} µs, p95 {:.1} µs (run #{}).",
        a.throughput_ops_per_s, a.p50_us, a.p95_us, think.id
    )];
    let slower = |x: f64, y: f64| if y > 0.0 { x / y - 1.0 } else { 0.0 };
    let (m, p) = (slower(a.p50_us, b.p50_us), slower(a.p95_us, b.p95_us));
    could.push(if m > 0.05 || p > 0.05 {
        format!(
            "Think time makes each operation slower: median +{:.0}%, p95 +{:.0}% compared with back-to-back \
             operations (run #{}). Idle gaps let the CPU slow down or sleep; on a device with cpufreq the \
             governor is a prime suspect, here it can only be idle states, caches or the hypervisor.",
            m * 100.0,
            p * 100.0,
            busy.id
        )
    } else {
        format!(
            "Think time does not slow operations down (median {:+.0}%, p95 {:+.0}% vs back-to-back, run #{}): \
             whatever manages this CPU's speed is not hurting your latency here.",
            m * 100.0,
            p * 100.0,
            busy.id
        )
    });
    could.push(match think.energy.as_ref().and_then(|e| e.source.clone()) {
        Some(s) => format!(
            "Energy was measured ({s}); see `pocketbench results show {}`.",
            think.id
        ),
        None => format!(
            "Energy: not measured ({}).",
            think
                .energy
                .as_ref()
                .and_then(|e| e.reason.clone())
                .unwrap_or_else(|| "no source".into())
        ),
    });
    let could_not = vec![
        format!("Whether another governor would do better: this machine offers no CPU frequency control ({reason})."),
        "How much latency or energy the governor costs, and which governor is best on throughput, median and p95: \
         that needs runs under each governor — run `pocketbench diagnose` as root on the device itself (phone, board)."
            .into(),
        "The CPU frequency during your operations (no cpufreq to read).".into(),
    ];
    Ok(Diagnosis {
        workload,
        load,
        control: match &current {
            Some(g) => format!("observed {g}, control unavailable: {reason}"),
            None => format!("observed none (no cpufreq), control unavailable: {reason}"),
        },
        candidates: vec![a, b],
        verdict: None,
        could_determine: could,
        could_not_determine: could_not,
    })
}

fn from_store(req: &Request, sel: &str) -> Result<Diagnosis> {
    let store = Store::open_existing(&req.results)?;
    let ids: Vec<i64> = if sel == "all" {
        store
            .list()?
            .iter()
            .filter(|r| r.kind == "run")
            .map(|r| r.id)
            .collect()
    } else {
        sel.split(',')
            .map(|s| {
                s.trim().parse().map_err(|_| {
                    Error::input(format!("--from-results {sel}: `{s}` is not a run id"))
                })
            })
            .collect::<Result<_>>()?
    };
    let mut runs = ids
        .iter()
        .map(|&id| store.summary(id))
        .collect::<Result<Vec<_>>>()?;
    let key = |s: &RunSummary| format!("{} / delay {}", s.workload.name, s.delay);
    let latest = runs
        .last()
        .map(key)
        .ok_or_else(|| Error::input("--from-results: no runs in the store"))?;
    if sel != "all" && runs.iter().any(|s| key(s) != latest) {
        return Err(Error::input(format!(
            "--from-results {sel}: the runs mix workloads; pick runs of one workload and delay"
        )));
    }
    runs.retain(|s| key(s) == latest);
    let label = |s: &RunSummary| match &s.governor {
        Some(g) if g.control == "set" => g.requested.clone().unwrap_or_default(),
        Some(g) => format!(
            "observed {}",
            g.policies
                .first()
                .and_then(|p| p.governor.clone())
                .unwrap_or_else(|| "none".into())
        ),
        None => "unknown".into(),
    };
    let mut groups: Vec<(String, Vec<RunSummary>)> = Vec::new();
    for s in runs {
        let l = label(&s);
        match groups.iter_mut().find(|(g, _)| *g == l) {
            Some((_, v)) => v.push(s),
            None => groups.push((l, vec![s])),
        }
    }
    let candidates: Vec<Candidate> = groups.iter().map(|(l, r)| candidate(l, r)).collect();
    let device_now = cpufreq::discover(&sysfs_root())
        .policies
        .first()
        .and_then(|p| p.governor.clone());
    let cur = req
        .current
        .clone()
        .or(device_now)
        .and_then(|c| candidates.iter().position(|x| x.label == c))
        .unwrap_or(0);
    let verdict = (candidates.len() > 1).then(|| judge(&candidates, cur, &req.thresholds));
    let could_not = if candidates.len() > 1 {
        Vec::new()
    } else {
        vec![
            "A comparison: every selected run used the same governor; run more under others first."
                .into(),
        ]
    };
    Ok(Diagnosis {
        workload: latest,
        load: "as recorded in the runs".into(),
        control: "read from the results store".into(),
        candidates,
        verdict,
        could_determine: Vec::new(),
        could_not_determine: could_not,
    })
}

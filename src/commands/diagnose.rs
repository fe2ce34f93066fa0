//! `pocketbench diagnose`: "is my governor working?". Given a workload class (or a trace of
//! the user's own app) and the current governor and load, it runs the short comparison the
//! question needs — the same operations under the current governor and each alternative the
//! device offers, interleaved across repeats — or reads runs already in the results store,
//! and explains the outcome in plain words ([`crate::platform::diagnose`]). Where the governor
//! cannot be controlled it says so, runs what it can (the workload with and without its think
//! time), and says what it could and could not determine.

use crate::error::{Error, Result};
use crate::platform::args::PlatformArgs;
use crate::platform::cpufreq::{self, request::GovernorRequest};
use crate::platform::diagnose::{judge, Candidate, Spread, Thresholds, Verdict};
use crate::platform::environment::sysfs_root;
use crate::report::progress;
use crate::results::{self, store::Store, summary::RunSummary};
use crate::run::{self, pacer::Pacing, RunRequest, WorkloadChoice};
use crate::workload::delay::DelayModel;
use crate::workload::Overrides;
use clap::Args;
use serde::Serialize;
use std::path::PathBuf;

#[derive(Args, Debug)]
pub struct DiagnoseArgs {
    /// Workload class (read-heavy, read-mostly, update-heavy, scan, read-modify-write, sql) or
    /// any workload `run` accepts.
    #[arg(long, short = 'w', default_value = "read-heavy")]
    pub workload: String,
    /// A trace of your own app (from `pocketbench trace gen` or a PocketData recording).
    #[arg(long, short = 't', conflicts_with = "workload")]
    pub trace: Option<PathBuf>,
    /// Operations per run (short by design).
    #[arg(long, default_value_t = 600)]
    pub ops: u64,
    #[arg(long, default_value_t = 500)]
    pub records: u64,
    /// Delay model (default: the workload's own think time).
    #[arg(long)]
    pub delay: Option<String>,
    #[arg(long, short = 'e', default_value = "sqlite")]
    pub engine: String,
    /// Governors to compare (comma-separated); default: the current one and every
    /// alternative offered (performance, powersave, ondemand, schedutil, …, fixed:50%).
    #[arg(long, value_delimiter = ',')]
    pub governors: Vec<String>,
    /// Runs per governor, interleaved (their spread tells differences from noise).
    #[arg(long, default_value_t = 2)]
    pub repeats: u32,
    /// Judge runs already stored instead of running: `all` (the latest workload's runs) or ids.
    #[arg(long, value_name = "all|ID,ID,…")]
    pub from_results: Option<String>,
    /// The governor you use now (default: what the device runs now).
    #[arg(long)]
    pub current: Option<String>,
    /// Differences up to this are "no meaningful difference".
    #[arg(long, default_value = "5%")]
    pub threshold: String,
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    #[arg(long)]
    pub json: bool,
    #[arg(long, short = 'q')]
    pub quiet: bool,
    #[command(flatten)]
    pub platform: PlatformArgs,
}

#[derive(Serialize)]
struct Diagnosis {
    workload: String,
    load: String,
    control: String,
    candidates: Vec<Candidate>,
    verdict: Option<Verdict>,
    could_determine: Vec<String>,
    could_not_determine: Vec<String>,
}

/// Workload classes of the follow-up study, as built-in workloads.
fn class(name: &str) -> &str {
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

pub fn main(args: &DiagnoseArgs) -> Result<i32> {
    progress::set_quiet(args.quiet || args.json);
    if args.platform.governor.is_some() {
        return Err(Error::input(
            "--governor: diagnose compares governors itself; use --governors",
        ));
    }
    let threshold = parse_pct(&args.threshold)?;
    let t = Thresholds {
        same: threshold,
        ..Default::default()
    };
    let d = match &args.from_results {
        Some(sel) => from_store(args, sel, &t)?,
        None => measure(args, &t)?,
    };
    if args.json {
        super::print_json(&d)?;
    } else {
        print!("{}", render(&d));
    }
    Ok(0)
}

fn parse_pct(text: &str) -> Result<f64> {
    text.trim_end_matches('%')
        .parse::<f64>()
        .ok()
        .filter(|v| *v >= 0.0 && *v < 100.0)
        .map(|v| v / 100.0)
        .ok_or_else(|| Error::input(format!("--threshold {text}: expected a percentage like 5%")))
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

fn load_text(args: &DiagnoseArgs) -> String {
    let bg = match (&args.platform.background, &args.platform.background_cmd) {
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
    args: &DiagnoseArgs,
    governor: Option<GovernorRequest>,
    delay: Option<DelayModel>,
) -> Result<RunSummary> {
    let mut platform = args.platform.request()?;
    platform.governor = governor;
    let workload = match &args.trace {
        Some(p) => WorkloadChoice::Trace(p.clone()),
        None => WorkloadChoice::Spec {
            spec: class(&args.workload).to_string(),
            overrides: Overrides {
                records: Some(args.records),
                ops: Some(args.ops),
                ..Default::default()
            },
        },
    };
    let req = RunRequest {
        workload,
        engine: args.engine.clone(),
        options: Vec::new(),
        delay,
        pacing: Pacing::Think,
        seed: 1,
        warm: false,
        drop_caches: false,
        data_dir: None,
        measure_overhead: false,
        platform,
        flash: Default::default(),
    };
    let prepared = run::prepare(&req)?;
    let mut store = Store::open(&args.results)?;
    let out = run::execute(&req, prepared)?;
    results::record(&out, &mut store, None, true)
}

fn candidate(label: &str, runs: &[RunSummary]) -> Candidate {
    let each = |f: &dyn Fn(&RunSummary) -> f64| runs.iter().map(f).collect::<Vec<f64>>();
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len().max(1) as f64;
    let lat = |s: &RunSummary, p95: bool| {
        s.latency_us
            .get("all")
            .map_or(0.0, |l| if p95 { l.p95 } else { l.p50 })
    };
    let (tput, p50, p95) = (
        each(&|s| s.throughput_ops_per_s),
        each(&|s| lat(s, false)),
        each(&|s| lat(s, true)),
    );
    // Energy per operation of every run (net of its baseline when it had one), or none.
    let energy: Option<Vec<(f64, bool)>> = runs
        .iter()
        .map(|s| {
            let e = s.energy.as_ref()?;
            match (e.net_uj_per_op, e.run) {
                (Some(net), _) => Some((net, true)),
                (None, Some(r)) if s.ops > 0 => Some((r.energy_uj as f64 / s.ops as f64, false)),
                _ => None,
            }
        })
        .collect();
    let energy_values: Option<Vec<f64>> =
        energy.as_ref().map(|v| v.iter().map(|(e, _)| *e).collect());
    let khz: Vec<u64> = runs
        .iter()
        .filter_map(|s| {
            let f = s.frequency.as_ref()?;
            let v: Vec<u64> = f
                .best_residency()
                .iter()
                .filter_map(|p| p.mean_khz)
                .collect();
            (!v.is_empty()).then(|| v.iter().sum::<u64>() / v.len() as u64)
        })
        .collect();
    Candidate {
        label: label.to_string(),
        runs: runs.iter().map(|s| s.id).collect(),
        throughput_ops_per_s: mean(&tput),
        p50_us: mean(&p50),
        p95_us: mean(&p95),
        energy_uj_per_op: energy_values.as_deref().map(mean),
        energy_basis: energy.map(|v| {
            if v.iter().all(|(_, net)| *net) {
                "net"
            } else {
                "gross"
            }
            .into()
        }),
        mean_khz: (!khz.is_empty()).then(|| khz.iter().sum::<u64>() / khz.len() as u64),
        spread: Spread {
            throughput: Spread::of(&tput),
            p50: Spread::of(&p50),
            p95: Spread::of(&p95),
            energy: energy_values.as_deref().and_then(Spread::of),
        },
    }
}

fn measure(args: &DiagnoseArgs, t: &Thresholds) -> Result<Diagnosis> {
    let cf = cpufreq::discover(&sysfs_root());
    let current = cf
        .policies
        .first()
        .and_then(|p| p.governor.clone())
        .or_else(|| args.current.clone());
    let workload = args.trace.as_ref().map_or_else(
        || class(&args.workload).to_string(),
        |p| p.display().to_string(),
    );
    let load = load_text(args);
    let delay = args.delay.as_deref().map(DelayModel::parse).transpose()?;
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
        return uncontrolled(args, workload, load, reason, current, delay);
    }
    let current = current.unwrap_or_else(|| "unknown".into());
    let mut govs: Vec<String> = if args.governors.is_empty() {
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
        args.governors.clone()
    };
    govs.dedup();
    let requests = govs
        .iter()
        .map(|g| {
            GovernorRequest::parse(g).map_err(|e| Error::input(format!("--governors {g}: {e}")))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut runs: Vec<Vec<RunSummary>> = vec![Vec::new(); govs.len()];
    for r in 0..args.repeats.max(1) {
        for (i, g) in requests.iter().enumerate() {
            progress::phase(&format!(
                "diagnose: {} (repeat {} of {})",
                g.label(),
                r + 1,
                args.repeats.max(1)
            ));
            runs[i].push(run_one(args, Some(g.clone()), delay.clone())?);
        }
    }
    let candidates: Vec<Candidate> = govs
        .iter()
        .zip(&runs)
        .map(|(g, r)| candidate(g, r))
        .collect();
    let cur = args
        .current
        .as_ref()
        .and_then(|c| govs.iter().position(|g| g == c))
        .unwrap_or(0);
    let verdict = judge(&candidates, cur, t);
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
    args: &DiagnoseArgs,
    workload: String,
    load: String,
    reason: String,
    current: Option<String>,
    delay: Option<DelayModel>,
) -> Result<Diagnosis> {
    let gov = current.clone().unwrap_or_else(|| "no cpufreq".into());
    progress::phase("diagnose: your workload with its think time (governor as found)");
    let think = run_one(args, None, delay)?;
    progress::phase("diagnose: the same operations without think time");
    let busy = run_one(args, None, Some(DelayModel::parse("zero")?))?;
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

fn from_store(args: &DiagnoseArgs, sel: &str, t: &Thresholds) -> Result<Diagnosis> {
    if !args.results.is_file() {
        return Err(Error::input(format!(
            "--results {}: no such results store",
            args.results.display()
        )));
    }
    let store = Store::open(&args.results)?;
    let ids: Vec<i64> = if sel == "all" {
        store.list()?.iter().map(|r| r.id).collect()
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
    let cur = args
        .current
        .clone()
        .or(device_now)
        .and_then(|c| candidates.iter().position(|x| x.label == c))
        .unwrap_or(0);
    let verdict = (candidates.len() > 1).then(|| judge(&candidates, cur, t));
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

fn render(d: &Diagnosis) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(o, "Is my governor working? — workload {}", d.workload);
    let _ = writeln!(o, "load       {}", d.load);
    let _ = writeln!(o, "governor   {}\n", d.control);
    let w = d
        .candidates
        .iter()
        .map(|c| c.label.chars().count())
        .max()
        .unwrap_or(0)
        .max(9);
    let _ = writeln!(
        o,
        "  {:<w$} {:>10} {:>10} {:>10} {:>12} {:>10}  runs",
        "candidate", "ops/s", "p50 µs", "p95 µs", "µJ/op", "mean freq"
    );
    for c in &d.candidates {
        let _ = writeln!(
            o,
            "  {:<w$} {:>10.1} {:>10.1} {:>10.1} {:>12} {:>10}  {}",
            c.label,
            c.throughput_ops_per_s,
            c.p50_us,
            c.p95_us,
            c.energy_uj_per_op.map_or("-".into(), |e| format!(
                "{e:.1} {}",
                c.energy_basis.as_deref().unwrap_or("")
            )),
            c.mean_khz.map_or("-".into(), cpufreq::khz_text),
            c.runs
                .iter()
                .map(|r| format!("#{r}"))
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let _ = writeln!(o);
    if let Some(v) = &d.verdict {
        for f in &v.findings {
            let _ = writeln!(o, "{f}");
        }
    }
    if !d.could_determine.is_empty() {
        let _ = writeln!(o, "What pocketbench could determine:");
        for f in &d.could_determine {
            let _ = writeln!(o, "  - {f}");
        }
    }
    if !d.could_not_determine.is_empty() {
        let _ = writeln!(o, "What it could not determine:");
        for f in &d.could_not_determine {
            let _ = writeln!(o, "  - {f}");
        }
    }
    o
}

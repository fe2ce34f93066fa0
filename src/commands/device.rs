//! `pocketbench device list|run|pull`: phones over adb and boards over ssh (src/device/).

use crate::device::job::{self, End, RootMode};
use crate::device::transport::{Lost, Transport};
use crate::device::{self, adb, collect, config, probe, ssh, Selector};
use crate::error::{Error, Result};
use crate::limits::escape;
use crate::output::units;
use crate::results::device_jobs::Merged;
use crate::results::store::Store;
use clap::{Args, Subcommand};
use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

#[derive(Subcommand, Debug)]
pub enum DeviceCommand {
    /// Every attached adb device and configured ssh target, with what matters before a run:
    /// model, SoC, ABI, kernel, OS, root, SELinux, governors, the storage behind the working
    /// directory.
    #[command(
        after_help = "Examples:\n  pocketbench device list\n  pocketbench device list --json\n\nssh targets are read from ~/.config/pocketbench/devices.toml (format: docs/device.md)."
    )]
    List(ListArgs),
    /// Run a pocketbench command on a device: push the binary for its ABI, start the command
    /// detached (a pulled cable does not stop it), stream its output, pull its results and
    /// merge them into the local store tagged with the device's identity.
    #[command(
        after_help = "Examples:\n  pocketbench device run -- run --ops 2000\n  pocketbench device run --serial R58M1234 -- storage --tests seq-write,rand-write\n  pocketbench device run pi -- matrix docs/example-study.toml   (the plan is pushed with the job)\n  pocketbench device run --ssh pi@raspberrypi.local -- run --workload pocketdata-ia\n  pocketbench device run --root require -- run --governor powersave"
    )]
    Run(RunOnDevice),
    /// Collect jobs that finished while the host was disconnected (or wait for running ones),
    /// merging their results into the local store.
    #[command(
        after_help = "Examples:\n  pocketbench device pull\n  pocketbench device pull pi --wait"
    )]
    Pull(PullArgs),
    /// Capture an Android app's SQL: turn on the framework's statement, time and operation
    /// logs, stream the log, restart the app, collect for a while, restore every property,
    /// copy its databases to read their schema, and write the statement log (import it with
    /// `trace import`).
    #[command(
        after_help = "Examples:\n  pocketbench device capture --package com.example.notes --duration 60s -o notes.jsonl\n  pocketbench trace import notes.jsonl -o notes.pbt"
    )]
    Capture(CaptureArgs),
}

#[derive(Args, Debug)]
pub struct CaptureArgs {
    #[command(flatten)]
    pub target: Target,
    /// The app's package name.
    #[arg(long)]
    pub package: String,
    /// How long to collect after the app starts (use the app meanwhile); without it, until
    /// Ctrl-C (SIGINT or SIGTERM). Every property is restored after any number of them, even
    /// during set-up (Ctrl-\ quits at once, leaving them).
    #[arg(long)]
    pub duration: Option<String>,
    /// The statement log to write (its raw logcat goes beside it, as .logcat).
    #[arg(long, short = 'o')]
    pub output: PathBuf,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

/// Which device, and where on it.
#[derive(Args, Debug, Clone)]
pub struct Target {
    /// A configured ssh target's name or an adb serial; default: the only attached adb device.
    pub target: Option<String>,
    /// The adb device with this serial (also ANDROID_SERIAL).
    #[arg(long, short = 's', conflicts_with = "ssh")]
    pub serial: Option<String>,
    /// An ssh target not in the devices file: user@host[:port] (keys or an agent only).
    #[arg(long, value_name = "USER@HOST")]
    pub ssh: Option<String>,
    /// Working directory on the device [default: /data/local/tmp/pocketbench on Android,
    /// pocketbench in the login directory over ssh].
    #[arg(long, value_name = "DIR")]
    pub dir: Option<String>,
    /// The ssh targets file [default: POCKETBENCH_DEVICES, else
    /// ~/.config/pocketbench/devices.toml].
    #[arg(long, value_name = "FILE")]
    pub devices: Option<PathBuf>,
}

impl Target {
    fn selector(&self) -> Selector {
        Selector {
            target: self.target.clone(),
            serial: self.serial.clone(),
            ssh: self.ssh.clone(),
            dir: self.dir.clone(),
            devices_file: self.devices.clone(),
        }
    }
}

#[derive(Args, Debug)]
pub struct ListArgs {
    /// The ssh targets file [default: POCKETBENCH_DEVICES, else
    /// ~/.config/pocketbench/devices.toml].
    #[arg(long, value_name = "FILE")]
    pub devices: Option<PathBuf>,
    /// Print the devices as JSON.
    #[arg(long)]
    pub json: bool,
}

/// How a job is followed.
#[derive(Args, Debug)]
pub struct Follow {
    /// The local results store the device's runs are merged into.
    #[arg(long, default_value = "pocketbench.db")]
    pub results: PathBuf,
    /// How often the job's progress is polled.
    #[arg(long, value_name = "DURATION", default_value = "1s")]
    pub poll: String,
    /// How long to wait for a lost connection to come back before leaving the job to `device
    /// pull` (it goes on on the device either way).
    #[arg(long, value_name = "DURATION", default_value = "120s")]
    pub patience: String,
    /// Do not stream the command's output.
    #[arg(long, short = 'q')]
    pub quiet: bool,
}

#[derive(Args, Debug)]
pub struct RunOnDevice {
    #[command(flatten)]
    pub target: Target,
    #[command(flatten)]
    pub follow: Follow,
    /// Where the device binaries are: DIR/aarch64/pocketbench, DIR/armv7/pocketbench
    /// [default: POCKETBENCH_DEVICE_BINARIES, else target/device].
    #[arg(long, value_name = "DIR")]
    pub binaries: Option<PathBuf>,
    /// Run as root: auto (when the device offers a root shell or su), never, or require.
    #[arg(long, value_enum, default_value_t = RootMode::Auto)]
    pub root: RootMode,
    /// The pocketbench command to run on the device, after `--`.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Args, Debug)]
pub struct PullArgs {
    #[command(flatten)]
    pub target: Target,
    #[command(flatten)]
    pub follow: Follow,
    /// Wait for jobs still running instead of leaving them.
    #[arg(long)]
    pub wait: bool,
}

/// `cli` is pocketbench's whole command line (`Cli::command()`), which checks the command for
/// the device before anything is pushed.
pub fn main(cmd: &DeviceCommand, cli: clap::Command) -> Result<i32> {
    if !device::AVAILABLE {
        return Err(device::unavailable());
    }
    match cmd {
        DeviceCommand::List(a) => list(a),
        DeviceCommand::Run(a) => run(a, cli),
        DeviceCommand::Pull(a) => pull(a),
        DeviceCommand::Capture(a) => capture(a),
    }
}

#[derive(serde::Serialize)]
struct Entry {
    target: String,
    /// `ready`, or what is wrong.
    state: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    device: Option<probe::DeviceInfo>,
}

fn list(a: &ListArgs) -> Result<i32> {
    let mut entries = Vec::new();
    let mut notes = Vec::new();
    match adb::list() {
        Err(Lost(m)) => notes.push(format!("adb: {m}")),
        Ok(found) if found.is_empty() => {
            notes.push("adb: no devices attached (enable USB debugging and connect a phone)".into())
        }
        Ok(found) => {
            for d in found {
                let target = format!("adb:{}", d.serial);
                let entry = match d.problem() {
                    Some(p) => Entry {
                        target,
                        state: p,
                        device: None,
                    },
                    None => match probe::probe(&adb::Adb::attached(&d.serial, None)) {
                        Ok(info) => Entry {
                            target,
                            state: "ready".into(),
                            device: Some(info),
                        },
                        Err(e) => Entry {
                            target,
                            state: e.to_string(),
                            device: None,
                        },
                    },
                };
                entries.push(entry);
            }
        }
    }
    let configured = config::load(a.devices.as_deref())?;
    if configured.ssh.is_empty() {
        notes.push(format!(
            "ssh: no targets configured ({})",
            if configured.source.is_empty() {
                "no devices file".into()
            } else {
                configured.source.clone()
            }
        ));
    }
    for (name, t) in &configured.ssh {
        let s = ssh::Ssh::configured(name, t.clone(), a.devices.clone(), None);
        let target = s.name();
        entries.push(match probe::probe(&s) {
            Ok(info) => Entry {
                target,
                state: "ready".into(),
                device: Some(info),
            },
            Err(e) => Entry {
                target,
                state: format!("unreachable: {e}"),
                device: None,
            },
        });
    }
    if a.json {
        super::print_json(&serde_json::json!({ "devices": entries, "notes": notes }))?;
        return Ok(0);
    }
    let mut out = String::new();
    for e in &entries {
        out.push_str(&format!(
            "{}  {}\n",
            e.target,
            crate::limits::one_line(&e.state)
        ));
        if let Some(info) = &e.device {
            for (k, v) in info.describe() {
                out.push_str(&format!("  {k:<10} {v}\n"));
            }
        }
    }
    for n in &notes {
        out.push_str(&format!("{n}\n"));
    }
    if entries.is_empty() {
        out.push_str("no devices: attach a phone with USB debugging enabled, or configure an ssh target (docs/device.md)\n");
    }
    print!("{out}");
    Ok(0)
}

fn duration(text: &str, flag: &str) -> Result<Duration> {
    units::parse_duration(text, flag).map(Duration::from_nanos)
}

/// The command for the device, checked here with this binary's own command line: a mistake is
/// found before anything is pushed.
/// What the command needs of its job.
struct Needs {
    manages_results: bool,
    wants_root: bool,
    /// Its flags naming a file it writes.
    output_flags: Vec<String>,
}

fn check_command(command: &[String], cli: clap::Command) -> Result<Needs> {
    let name = command[0].as_str();
    if matches!(name, "device" | "__replay") {
        return Err(Error::input(format!(
            "device run: {} cannot run on a device",
            escape(name)
        )));
    }
    let argv = std::iter::once("pocketbench".to_string()).chain(command.iter().cloned());
    if let Err(e) = cli.clone().try_get_matches_from(argv) {
        use clap::error::ErrorKind;
        if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
            // `-- --version`, `-- --help`, `-- run --help`: the device prints them.
            return Ok(Needs {
                manages_results: false,
                wants_root: false,
                output_flags: Vec::new(),
            });
        }
        let first = e.to_string();
        let first = first
            .lines()
            .next()
            .unwrap_or("")
            .trim_start_matches("error: ");
        return Err(Error::input(format!(
            "device run: the command for the device: {first}"
        )));
    }
    let sub = cli.find_subcommand(name);
    let manages_results = sub.is_some_and(|s| s.get_arguments().any(|a| a.get_id() == "results"));
    if command
        .iter()
        .any(|a| a == "--results" || a.starts_with("--results="))
    {
        return Err(Error::input(
            "device run: --results belongs to device run itself (the local store); the device's own store is managed for you",
        ));
    }
    let wants_root = matches!(name, "matrix" | "diagnose")
        || command
            .iter()
            .any(|a| a == "--governor" || a.starts_with("--governor="));
    // The argument `output` is a file the command writes (`-o` of `run` is an engine option).
    let output_flags = sub
        .and_then(|s| s.get_arguments().find(|a| a.get_id() == "output"))
        .map(|a| {
            let short = a.get_short().map(|c| format!("-{c}"));
            let long = a.get_long().map(|l| format!("--{l}"));
            short.into_iter().chain(long).collect()
        })
        .unwrap_or_default();
    Ok(Needs {
        manages_results,
        wants_root,
        output_flags,
    })
}

fn sink(quiet: bool) -> impl FnMut(&[u8]) {
    move |chunk: &[u8]| {
        if !quiet {
            let mut err = std::io::stderr().lock();
            let _ = err.write_all(chunk);
            let _ = err.flush();
        }
    }
}

fn report(t: &dyn Transport, job: &str, merged: Option<Merged>, store: &std::path::Path) {
    match merged {
        Some(Merged::New(ids)) if !ids.is_empty() => println!(
            "{}: job {job}: {} run(s) merged into {} as {}",
            t.name(),
            ids.len(),
            store.display(),
            ids.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Some(Merged::Before(ids)) => println!(
            "{}: job {job} was merged before (runs {}); removed from the device",
            t.name(),
            ids.iter()
                .map(|i| i.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
        _ => println!("{}: job {job}: no results to merge", t.name()),
    }
}

fn run(a: &RunOnDevice, cli: clap::Command) -> Result<i32> {
    let needs = check_command(&a.command, cli)?;
    let req = job::Request {
        args: a.command.clone(),
        manages_results: needs.manages_results,
        wants_root: needs.wants_root,
        output_flags: needs.output_flags,
        binaries: a.binaries.clone(),
        root: a.root,
        poll: duration(&a.follow.poll, "--poll")?,
        patience: duration(&a.follow.patience, "--patience")?,
        results: a.follow.results.clone(),
    };
    // The output files' folders and the local store are checked before anything runs on the
    // device.
    crate::device::outputs::rewrite(&req.args, &req.output_flags, "")?;
    let mut store = Store::open(&a.follow.results)?;
    let t = device::select(&a.target.selector())?;
    let info = probe::probe(t.as_ref())?;
    let started = job::start(t.as_ref(), &info, &req)?;
    eprintln!(
        "{}: job {} started in {}",
        t.name(),
        started.id,
        escape(&started.dir)
    );
    let end = job::follow(t.as_ref(), &started, &req, sink(a.follow.quiet))?;
    let merged = collect::collect(t.as_ref(), &started, &mut store)?;
    report(t.as_ref(), &started.id, merged, &a.follow.results);
    match end {
        End::Exited(rc) => Ok(rc),
        End::Died => Err(Error::failed(format!(
            "{}: job {}: the command ended without an exit status (killed, or the device rebooted); what it had stored was merged",
            t.name(),
            started.id
        ))),
    }
}

fn pull(a: &PullArgs) -> Result<i32> {
    let req = job::Request {
        args: Vec::new(),
        manages_results: true,
        wants_root: false,
        output_flags: Vec::new(),
        binaries: None,
        root: RootMode::Never,
        poll: duration(&a.follow.poll, "--poll")?,
        patience: duration(&a.follow.patience, "--patience")?,
        results: a.follow.results.clone(),
    };
    let mut store = Store::open(&a.follow.results)?;
    let t = device::select(&a.target.selector())?;
    let base = job::base_dir(t.as_ref())?;
    let found = collect::jobs(t.as_ref(), &base)?;
    if found.is_empty() {
        println!("{}: no jobs in {}", t.name(), escape(&base));
        return Ok(0);
    }
    let mut running = 0;
    for f in found {
        let end = match f.end {
            Some(end) => end,
            None if a.wait => {
                eprintln!("{}: waiting for job {}", t.name(), f.job.id);
                job::follow(t.as_ref(), &f.job, &req, sink(a.follow.quiet))?
            }
            None => {
                println!(
                    "{}: job {} is still running (`device pull --wait` waits for it)",
                    t.name(),
                    f.job.id
                );
                running += 1;
                continue;
            }
        };
        if end == End::Died {
            eprintln!(
                "{}: job {} ended without an exit status; merging what it stored",
                t.name(),
                f.job.id
            );
        }
        let merged = collect::collect(t.as_ref(), &f.job, &mut store)?;
        report(t.as_ref(), &f.job.id, merged, &a.follow.results);
    }
    Ok(if running > 0 { 1 } else { 0 })
}

fn capture(a: &CaptureArgs) -> Result<i32> {
    if !crate::workload::import::AVAILABLE {
        return Err(crate::workload::import::unavailable("device capture"));
    }
    let req = device::capture::CaptureRequest {
        package: a.package.clone(),
        duration: a
            .duration
            .as_deref()
            .map(|d| {
                let t = duration(d, "--duration")?;
                let ns = u64::try_from(t.as_nanos()).unwrap_or(u64::MAX);
                let ns = crate::quick::cap_duration("--duration", d, ns, crate::quick::CAPTURE_NS);
                Ok::<_, crate::error::Error>(Duration::from_nanos(ns))
            })
            .transpose()?,
        output: a.output.clone(),
    };
    let t = device::select(&a.target.selector())?;
    let r = device::capture::capture(t.as_ref(), &req)?;
    if a.json {
        super::print_json(&r)?;
        return Ok(0);
    }
    println!(
        "wrote {}: {} statement(s) from {} logcat line(s) of pid(s) {:?} (raw: {}); schema: {} object(s) of {} database(s)",
        r.output.display(),
        r.statements,
        r.lines,
        r.pids,
        r.logcat.display(),
        r.schema_objects,
        r.databases.len()
    );
    if let Some(sig) = &r.interrupted {
        println!("collection ended by {sig}");
    }
    println!("set and restored: {}", r.set.join(", "));
    if !r.not_set.is_empty() {
        println!("could not set: {}", r.not_set.join(", "));
    }
    if let Some(via) = &r.schema_via {
        println!("databases read through {via}");
    }
    if let Some(p) = &r.schema_problem {
        println!("schema not read: {p} (give it with trace import --schema)");
    }
    if let Some(p) = &r.log_problem {
        println!("log: {p}");
    }
    if r.lines_too_long > 0 {
        println!(
            "log: {} line(s) over {} bytes left out",
            r.lines_too_long,
            device::capture::MAX_LINE
        );
    }
    Ok(0)
}

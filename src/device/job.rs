//! One pocketbench command run on a device as a detached job: the binary pushed (skipped when
//! the device already has the same one, by SHA-256), local input files pushed beside the job,
//! the command started under `setsid nohup` (through `su` when root is wanted and available) so
//! a pulled cable or a closed ssh session does not stop it, its output streamed back while it
//! runs, and the connection waited for when it drops.
//!
//! On the device: `DIR/pocketbench` (the binary) and `DIR/jobs/ID/` per job — `launch.sh`,
//! `device.json` (the probe at start), `inputs/`, `outputs/` and its manifest `outputs.tsv` (files
//! the command writes, [`super::outputs`]), `tmp/` (its TMPDIR), `log` (stdout and stderr),
//! `pid`, `results.db`, and `rc` (the exit status, written last).

use super::probe::DeviceInfo;
use super::transport::{self, Transport};
use super::{binaries, sh_quote};
use crate::error::{Error, Result, ResultExt};
use crate::limits::escape;
use crate::output::units;
use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Room the device must have besides the binary and inputs before a job starts; the command
/// itself then checks the room its own files need.
pub const MIN_FREE: u64 = 16 << 20;
/// The largest log chunk one poll reads.
const CHUNK: usize = 64 << 10;

/// Whether the job runs as root.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum RootMode {
    /// Root when the device offers it (a root shell, or `su`); otherwise unprivileged.
    Auto,
    /// Never root: governors and CPU sets are observed, not set.
    Never,
    /// Refuse to start unless root is available.
    Require,
}

pub struct Request {
    /// The pocketbench command for the device, without the program name.
    pub args: Vec<String>,
    /// The command takes `--results`: the job's store is `results.db` in its directory.
    pub manages_results: bool,
    /// The command can set governors or CPU sets (which needs root).
    pub wants_root: bool,
    /// The command's flags naming a file it writes (`-o`, `--output`): written in the job's
    /// `outputs/` and brought home ([`super::outputs`]).
    pub output_flags: Vec<String>,
    pub binaries: Option<PathBuf>,
    pub root: RootMode,
    /// How often progress is polled.
    pub poll: Duration,
    /// How long a lost connection is waited for before giving up (the job goes on).
    pub patience: Duration,
    /// The local store the job's results are merged into (named in the hint to pull them).
    pub results: PathBuf,
}

/// A started job.
#[derive(Clone, Debug)]
pub struct Job {
    pub id: String,
    /// Absolute path of the job directory on the device.
    pub dir: String,
}

/// How a followed job ended.
#[derive(Debug, PartialEq, Eq)]
pub enum End {
    /// The command exited with this status.
    Exited(i32),
    /// The command died without an exit status (killed, or the device rebooted).
    Died,
}

fn sha256(path: &Path) -> Result<String> {
    let mut f = std::fs::File::open(path).input_err(path.display())?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).input_err(path.display())?;
    Ok(h.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// `mkdir -p` the working directory and return its absolute path.
pub fn base_dir(t: &dyn Transport) -> Result<String> {
    let dir = t.dir();
    let out = transport::must(
        t,
        &format!("creating {}", escape(&dir)),
        &format!("mkdir -p {d} && cd {d} && pwd -P", d = sh_quote(&dir)),
    )?;
    Ok(out.trim().to_string())
}

/// Refuse a device that cannot take a job before anything is pushed.
fn check_room(info: &DeviceInfo, need: u64) -> Result<()> {
    let s = &info.storage;
    if s.noexec {
        return Err(Error::input(format!(
            "{}: {} is on {} mounted noexec ({}): binaries cannot run there; choose a directory on another file system with --dir",
            info.target,
            escape(&s.dir),
            escape(&s.mount),
            escape(&s.mount_options)
        )));
    }
    if let Some(free) = s.free_bytes {
        if free < need {
            return Err(Error::input(format!(
                "{}: {} has only {} free, and the job needs at least {}: free some space or choose another directory with --dir",
                info.target,
                escape(&s.dir),
                units::bytes(free),
                units::bytes(need)
            )));
        }
    }
    Ok(())
}

/// Whether `BASE/pocketbench` differs from `binary` (so it must be pushed).
fn needs_push(t: &dyn Transport, base: &str, binary: &Path) -> Result<bool> {
    let remote = format!("{base}/pocketbench");
    let local_hash = sha256(binary)?;
    let remote_hash = t
        .shell(&format!("sha256sum {} 2>/dev/null", sh_quote(&remote)))?
        .stdout;
    Ok(remote_hash.split_whitespace().next() != Some(local_hash.as_str()))
}

/// Push `binary` to `BASE/pocketbench` when `push` (the device has another file or none), and
/// check that it runs there (through the device's `POCKETBENCH_RUNNER`, if it sets one).
fn install(t: &dyn Transport, base: &str, binary: &Path, push: bool) -> Result<()> {
    let remote = format!("{base}/pocketbench");
    if push {
        let part = format!("{remote}.part");
        t.push(binary, &part).map_err(|l| {
            let full = l.0.contains("No space left") || l.0.contains("ENOSPC");
            let m = format!("pushing the pocketbench binary: {}", l.0);
            if full {
                Error::input(format!("{m}: the device is full"))
            } else {
                Error::failed(m)
            }
        })?;
        transport::must(
            t,
            "installing the binary",
            &format!(
                "chmod 755 {p} && mv -f {p} {r}",
                p = sh_quote(&part),
                r = sh_quote(&remote)
            ),
        )?;
    }
    let sh = t.shell(&format!(
        "$POCKETBENCH_RUNNER {} --version 2>&1",
        sh_quote(&remote)
    ))?;
    if sh.rc != 0 {
        let why = sh.stdout.lines().last().unwrap_or("").trim().to_string();
        return Err(Error::input(format!(
            "{}: the pocketbench binary cannot run from {} (status {}: {}); the file system may be mounted noexec: choose another directory with --dir",
            t.name(),
            escape(base),
            sh.rc,
            escape(&why)
        )));
    }
    Ok(())
}

/// A fresh job id: UTC time and a random suffix.
fn new_id() -> String {
    let stamp = crate::platform::clock::utc_now().replace([':', '-'], "");
    let mut r = [0u8; 4];
    let noise = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos())
        ^ std::process::id().rotate_left(16);
    r.copy_from_slice(&noise.to_le_bytes());
    format!(
        "{}-{:08x}",
        stamp.trim_end_matches('Z').replace('.', ""),
        u32::from_le_bytes(r)
    )
}

/// Arguments naming local files are pushed to the job's `inputs/` and replaced by their path
/// there (`--workload app.json`, `--workload=app.json`, `matrix study.toml`).
fn push_inputs(t: &dyn Transport, job_dir: &str, args: &[String]) -> Result<Vec<String>> {
    let mut out = Vec::with_capacity(args.len());
    for (i, a) in args.iter().enumerate() {
        let (prefix, value) = match a.split_once('=') {
            Some((flag, v)) if flag.starts_with("--") => (format!("{flag}="), v),
            _ => (String::new(), a.as_str()),
        };
        let p = Path::new(value);
        if i == 0 || value.starts_with('-') || !p.is_file() {
            out.push(a.clone());
            continue;
        }
        let size = std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
        crate::limits::at_most(
            &format!("input file {}", p.display()),
            size,
            crate::limits::MAX_WORKLOAD_FILE_BYTES,
        )?;
        let name = super::outputs::plain_file_name(p, "input");
        // Under its own name (in a folder per argument), so a workload file's name, and the
        // workload name taken from it, are the same on the device as on the host.
        let folder = format!("{job_dir}/inputs/{i}");
        transport::must(
            t,
            "creating inputs",
            &format!("mkdir -p {}", sh_quote(&folder)),
        )?;
        let remote = format!("{folder}/{name}");
        t.push(p, &remote)
            .map_err(|l| Error::failed(format!("pushing {}: {}", p.display(), l.0)))?;
        out.push(format!("{prefix}{remote}"));
    }
    Ok(out)
}

/// Start `req` on the device described by `info`; returns the job once it runs detached.
pub fn start(t: &dyn Transport, info: &DeviceInfo, req: &Request) -> Result<Job> {
    let binary = binaries::find(info.arch, &info.abi, req.binaries.as_deref())?;
    let use_su = match (req.root, info.root.as_str()) {
        (RootMode::Require, "none") => {
            return Err(Error::input(format!(
                "{}: --root require, but the device has no root (no root shell and no working su)",
                t.name()
            )))
        }
        (RootMode::Never, _) => false,
        (_, "su") => true,
        _ => false,
    };
    if req.wants_root && (req.root == RootMode::Never || info.root == "none") {
        eprintln!(
            "{}: no root for this job: governors and CPU sets will be observed, not set (recorded as observed)",
            t.name()
        );
    }
    let base = base_dir(t)?;
    // The binary needs room only when it is pushed (not when the device has it already).
    let push = needs_push(t, &base, &binary)?;
    let size = if push {
        std::fs::metadata(&binary).map(|m| m.len()).unwrap_or(0)
    } else {
        0
    };
    check_room(info, size.saturating_add(MIN_FREE))?;
    install(t, &base, &binary, push)?;
    let id = new_id();
    let dir = format!("{base}/jobs/{id}");
    transport::must(
        t,
        "creating the job directory",
        &format!(
            "mkdir -p {d}/inputs {d}/tmp {d}/outputs",
            d = sh_quote(&dir)
        ),
    )?;
    let (args, outputs) = super::outputs::rewrite(&req.args, &req.output_flags, &dir)?;
    let mut args = push_inputs(t, &dir, &args)?;
    if req.manages_results {
        args.push("--results".into());
        args.push(format!("{dir}/results.db"));
    }
    let staging = crate::platform::cleanup::TempDir::new("pocketbench-device-", None)
        .run_err("a temporary directory")?;
    let device_json = staging.path().join("device.json");
    std::fs::write(
        &device_json,
        serde_json::to_vec_pretty(info).run_err("device.json")?,
    )
    .run_err("device.json")?;
    let launch = staging.path().join("launch.sh");
    std::fs::write(&launch, launch_script(&dir, &base, &args)).run_err("launch.sh")?;
    let manifest = staging.path().join(super::outputs::MANIFEST);
    std::fs::write(&manifest, super::outputs::manifest(&outputs)).run_err("outputs")?;
    for (local, name) in [
        (&device_json, "device.json"),
        (&launch, "launch.sh"),
        (&manifest, super::outputs::MANIFEST),
    ] {
        t.push(local, &format!("{dir}/{name}"))
            .map_err(|l| Error::failed(format!("pushing {name}: {}", l.0)))?;
    }
    let run = if use_su {
        format!(
            "su -c {}",
            sh_quote(&format!("sh {}/launch.sh", sh_quote(&dir)))
        )
    } else {
        format!("sh {}/launch.sh", sh_quote(&dir))
    };
    transport::must(
        t,
        "starting the job",
        &format!(
            "cd {d} && if command -v setsid >/dev/null 2>&1; then S=setsid; else S=; fi; $S nohup {run} </dev/null >/dev/null 2>&1 &",
            d = sh_quote(&dir)
        ),
    )?;
    Ok(Job { id, dir })
}

/// The script the job runs on the device: the command with its output in `log`, then the exit
/// status in `rc` (written last, by rename, so `rc` exists only once everything is written).
/// Quick mode ([`crate::quick`]) goes with the command.
fn launch_script(dir: &str, base: &str, args: &[String]) -> String {
    let d = sh_quote(dir);
    let cmd: Vec<String> = args.iter().map(|a| sh_quote(a)).collect();
    let quick = if crate::quick::active() {
        format!("export {}=1\n", crate::quick::ENV)
    } else {
        String::new()
    };
    format!(
        "cd {d} || exit 1\necho $$ > pid\nexport TMPDIR={d}/tmp\n{quick}$POCKETBENCH_RUNNER {bin} {cmd} > log 2>&1\nrc=$?\nchmod -R a+rX {d} 2>/dev/null\necho $rc > rc.part && mv -f rc.part rc\n",
        bin = sh_quote(&format!("{base}/pocketbench")),
        cmd = cmd.join(" ")
    )
}

/// The state of a job as one poll sees it.
pub fn state_script(dir: &str) -> String {
    format!(
        "if ! cd {} 2>/dev/null; then echo @gone; elif [ -f rc ]; then echo \"@done $(cat rc)\"; elif [ -d \"/proc/$(cat pid 2>/dev/null || echo none)\" ]; then echo @running; elif [ -f pid ]; then echo @dead; else echo @starting; fi",
        sh_quote(dir)
    )
}

/// Parse a job state line.
pub fn parse_state(line: &str) -> Option<Option<End>> {
    match line.trim() {
        "@running" | "@starting" => Some(None),
        "@dead" | "@gone" => Some(Some(End::Died)),
        l => l
            .strip_prefix("@done ")
            .and_then(|rc| rc.trim().parse().ok())
            .map(|rc| Some(End::Exited(rc))),
    }
}

/// How long a job may stay unstarted (no `pid` yet: `su` waiting for the user to grant it,
/// say) before following it gives up.
const START_PATIENCE: Duration = Duration::from_secs(120);

/// Follow a running job: print its output as it grows, until it ends. A lost connection is
/// waited for up to `req.patience`; after that the error says how to collect the job later.
pub fn follow(
    t: &dyn Transport,
    job: &Job,
    req: &Request,
    mut sink: impl FnMut(&[u8]),
) -> Result<End> {
    let mut offset = 0u64;
    let mut lost_since: Option<Instant> = None;
    let started = Instant::now();
    loop {
        // The state first: once it says done, the log read after it is complete.
        let script = format!(
            "{}
s=$(wc -c < log 2>/dev/null || echo 0); n=$((s - {offset})); [ $n -gt {CHUNK} ] && n={CHUNK}; [ $n -lt 0 ] && n=0
echo \"@size $(({offset} + n)) $s\"
[ $n -gt 0 ] && tail -c +{} log | head -c $n\ntrue",
            state_script(&job.dir),
            offset + 1,
        );
        match t.shell(&script) {
            Ok(sh) => {
                if lost_since.take().is_some() {
                    eprintln!("{}: connection back; the job went on", t.name());
                }
                let mut lines = sh.stdout.splitn(3, '\n');
                let state = lines.next().unwrap_or("");
                let size = lines.next().unwrap_or("");
                let chunk = lines.next().unwrap_or("");
                let end = parse_state(state).ok_or_else(|| {
                    Error::failed(format!(
                        "{}: unexpected job state {}",
                        t.name(),
                        escape(state)
                    ))
                })?;
                let (upto, total) = parse_size(size).ok_or_else(|| {
                    Error::failed(format!(
                        "{}: unexpected log size {}",
                        t.name(),
                        escape(size)
                    ))
                })?;
                if upto > offset {
                    sink(chunk.as_bytes());
                    offset = upto;
                }
                if let Some(end) = end {
                    if offset >= total {
                        return Ok(end);
                    }
                    continue;
                }
                if state.trim() == "@starting" && started.elapsed() > START_PATIENCE {
                    return Err(Error::failed(format!(
                        "{}: job {} has not started after {} s (is su waiting for a grant on the phone?); its directory is {}",
                        t.name(),
                        job.id,
                        START_PATIENCE.as_secs(),
                        escape(&job.dir)
                    )));
                }
            }
            Err(lost) => {
                let since = *lost_since.get_or_insert_with(|| {
                    eprintln!(
                        "{}: lost contact ({}); the job goes on on the device; waiting up to {}",
                        t.name(),
                        lost.0,
                        units::format_duration(req.patience.as_nanos() as u64)
                    );
                    Instant::now()
                });
                if since.elapsed() >= req.patience {
                    return Err(Error::failed(format!(
                        "{}: lost contact during job {} ({}); it goes on on the device: collect its results with `{}`",
                        t.name(),
                        job.id,
                        lost.0,
                        super::pull_command(t, &req.results)
                    )));
                }
            }
        }
        std::thread::sleep(req.poll);
    }
}

/// `@size UPTO TOTAL` of a poll.
fn parse_size(line: &str) -> Option<(u64, u64)> {
    let mut w = line.trim().strip_prefix("@size ")?.split_whitespace();
    Some((w.next()?.parse().ok()?, w.next()?.parse().ok()?))
}

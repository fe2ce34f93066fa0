//! Background load during the measured phase, standing in for what else a phone does while
//! the app queries its database (the follow-up study streamed video): CPU spinners with a duty
//! cycle, storage writers or readers, a mix of both, or any command. Load starts before the
//! replay process and stops after it (and after the idle baseline); its own CPU time and I/O
//! are recorded in the result. The CPU spinners are the only code in pocketbench that
//! busy-waits, on purpose: between their busy slices they sleep like everything else.
//!
//! `--background` takes `cpu:N[:DUTY%]`, `io:N[:write|read][:RATE]` (RATE like `4MB/s` = 4 000 000 B/s or `4MiB/s` = 4 194 304 B/s,
//! unlimited when absent) or `mixed` (= `cpu:1:40%` + `io:1:write:2MB/s`); several specs can
//! be joined with `+`. `--background-cmd "…"` runs a command in its own process group
//! (`sh -c`), stopped with SIGTERM (SIGKILL after 2 s).

use crate::platform::clock::{mono_ns, sleep_until, thread_cpu_ns};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Load {
    /// `threads` spinners, each busy `duty` (0..1] of every 100 ms.
    Cpu { threads: u32, duty: f64 },
    /// `threads` workers doing 4 KiB random writes (fdatasync every 16) or reads (cache
    /// dropped every 256) on a 16 MiB file, at most `rate` bytes/s each.
    Io {
        threads: u32,
        write: bool,
        rate: Option<u64>,
    },
}

const PERIOD_NS: u64 = 100_000_000;
const BLOCK: usize = 4096;
const FILE_BYTES: u64 = 16 << 20;

/// Parse a `--background` value.
pub fn parse(text: &str) -> Result<Vec<Load>, String> {
    let mut out = Vec::new();
    for part in text.split('+').map(str::trim) {
        let fields: Vec<&str> = part.split(':').collect();
        let threads = |i: usize| -> Result<u32, String> {
            fields
                .get(i)
                .map_or(Ok(1), |v| {
                    v.parse().ok().filter(|&n| n > 0 && n <= 1024).ok_or(())
                })
                .map_err(|_| format!("`{part}`: thread count must be 1..1024"))
        };
        match fields[0] {
            "mixed" if fields.len() == 1 => {
                out.push(Load::Cpu {
                    threads: 1,
                    duty: 0.4,
                });
                out.push(Load::Io {
                    threads: 1,
                    write: true,
                    rate: Some(2_000_000),
                });
            }
            "cpu" if fields.len() <= 3 => {
                let duty = match fields.get(2) {
                    None => 1.0,
                    Some(d) => {
                        d.strip_suffix('%')
                            .unwrap_or(d)
                            .parse::<f64>()
                            .ok()
                            .filter(|v| *v > 0.0 && *v <= 100.0)
                            .ok_or_else(|| {
                                format!("`{part}`: duty must be a percentage in (0, 100]")
                            })?
                            / 100.0
                    }
                };
                out.push(Load::Cpu {
                    threads: threads(1)?,
                    duty,
                });
            }
            "io" if fields.len() <= 4 => {
                let mut write = true;
                let mut rate = None;
                for f in fields.iter().skip(2) {
                    match *f {
                        "write" => write = true,
                        "read" => write = false,
                        r => {
                            rate = Some(crate::output::units::parse_rate(r).ok_or_else(|| {
                                format!(
                                    "`{part}`: `{r}` is neither write, read nor a rate like 4MB/s"
                                )
                            })?)
                        }
                    }
                }
                out.push(Load::Io {
                    threads: threads(1)?,
                    write,
                    rate,
                });
            }
            _ => {
                return Err(format!(
                    "`{part}`: expected cpu:N[:DUTY%], io:N[:write|read][:RATE] or mixed"
                ))
            }
        }
    }
    Ok(out)
}

pub fn describe(load: &Load) -> String {
    match load {
        Load::Cpu { threads, duty } => format!("cpu:{threads}:{}%", duty * 100.0),
        Load::Io {
            threads,
            write,
            rate,
        } => format!(
            "io:{threads}:{}{}",
            if *write { "write" } else { "read" },
            rate.map(|r| format!(":{r}B/s")).unwrap_or_default()
        ),
    }
}

/// The summary's `background` section.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct BackgroundReport {
    pub loads: Vec<String>,
    pub threads: u32,
    /// CPU time used by the load threads.
    pub cpu_ns: u64,
    pub wall_ns: u64,
    /// CPUs kept busy on average (cpu_ns / wall_ns).
    pub cpus_busy: f64,
    pub io_ops: u64,
    pub io_bytes: u64,
    pub command: Option<CommandReport>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct CommandReport {
    pub command: String,
    pub pid: u32,
    /// User + system CPU of the command and the descendants it waited for.
    pub cpu_ns: Option<u64>,
    /// How it ended (`stopped by SIGTERM`, `exited with 0 before the end`, …).
    pub ended: String,
}

#[derive(Default)]
struct WorkerStats {
    cpu_ns: u64,
    io_ops: u64,
    io_bytes: u64,
}

/// Load that is running.
pub struct Running {
    loads: Vec<Load>,
    stop: Arc<AtomicBool>,
    workers: Vec<JoinHandle<WorkerStats>>,
    command: Option<(String, u32)>,
    files: Vec<PathBuf>,
    started_ns: u64,
}

/// Start `loads` (I/O files go in `dir`) and `command`.
pub fn start(loads: &[Load], command: Option<&str>, dir: &Path) -> Result<Running, String> {
    let stop = Arc::new(AtomicBool::new(false));
    let mut workers = Vec::new();
    let mut files = Vec::new();
    let mut child = None;
    if let Some(cmd) = command {
        crate::platform::signals::install();
        use std::os::unix::process::CommandExt;
        let c = crate::platform::signals::unblocked(&mut std::process::Command::new("sh"))
            .arg("-c")
            .arg(cmd)
            .process_group(0)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .spawn()
            .map_err(|e| format!("--background-cmd `{cmd}`: cannot start sh: {e}"))?;
        crate::platform::signals::register_child(c.id(), true);
        child = Some((cmd.to_string(), c.id()));
    }
    for load in loads {
        match *load {
            Load::Cpu { threads, duty } => {
                for _ in 0..threads {
                    let stop = stop.clone();
                    workers.push(std::thread::spawn(move || spin(duty, &stop)));
                }
            }
            Load::Io {
                threads,
                write,
                rate,
            } => {
                for _ in 0..threads {
                    let path = dir.join(format!("background-io-{}.dat", files.len()));
                    files.push(path.clone());
                    let stop = stop.clone();
                    workers.push(std::thread::spawn(move || io(&path, write, rate, &stop)));
                }
            }
        }
    }
    Ok(Running {
        loads: loads.to_vec(),
        stop,
        workers,
        command: child,
        files,
        started_ns: mono_ns(),
    })
}

impl Running {
    /// Stop everything and report what the load used.
    pub fn stop(mut self) -> BackgroundReport {
        self.stop.store(true, Ordering::Release);
        let workers = std::mem::take(&mut self.workers);
        let mut rep = BackgroundReport {
            loads: self.loads.iter().map(describe).collect(),
            threads: workers.len() as u32,
            ..Default::default()
        };
        for w in workers {
            if let Ok(s) = w.join() {
                rep.cpu_ns += s.cpu_ns;
                rep.io_ops += s.io_ops;
                rep.io_bytes += s.io_bytes;
            }
        }
        rep.command = self.command.take().map(|(cmd, pid)| stop_command(cmd, pid));
        rep.wall_ns = mono_ns() - self.started_ns;
        rep.cpus_busy = (rep.cpu_ns as f64 / rep.wall_ns.max(1) as f64 * 1e3).round() / 1e3;
        rep
    }
}

impl Drop for Running {
    /// A run that fails still stops its load and removes its files.
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        if let Some((cmd, pid)) = self.command.take() {
            stop_command(cmd, pid);
        }
        for w in std::mem::take(&mut self.workers) {
            let _ = w.join();
        }
        for f in &self.files {
            let _ = std::fs::remove_file(f);
        }
    }
}

fn stop_command(command: String, pid: u32) -> CommandReport {
    let ended;
    let mut status = 0;
    // SAFETY: zeroed rusage is a valid out-parameter.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: plain wait4 on our own child.
    let early =
        unsafe { libc::wait4(pid as i32, &mut status, libc::WNOHANG, &mut ru) } == pid as i32;
    if early {
        ended = format!(
            "ended by itself before the measured phase finished ({})",
            exit_text(status)
        );
    } else {
        // SAFETY: signalling our child's process group.
        unsafe { libc::kill(-(pid as i32), libc::SIGTERM) };
        let t0 = mono_ns();
        loop {
            // SAFETY: as above.
            if unsafe { libc::wait4(pid as i32, &mut status, libc::WNOHANG, &mut ru) } == pid as i32
            {
                ended = format!("stopped ({})", exit_text(status));
                break;
            }
            if mono_ns() - t0 > 2_000_000_000 {
                // SAFETY: as above.
                unsafe {
                    libc::kill(-(pid as i32), libc::SIGKILL);
                    libc::wait4(pid as i32, &mut status, 0, &mut ru);
                }
                ended = "killed with SIGKILL (ignored SIGTERM for 2 s)".into();
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }
    crate::platform::signals::unregister_child(pid);
    let tv = |t: libc::timeval| t.tv_sec as u64 * 1_000_000_000 + t.tv_usec as u64 * 1_000;
    CommandReport {
        command,
        pid,
        cpu_ns: Some(tv(ru.ru_utime) + tv(ru.ru_stime)),
        ended,
    }
}

fn exit_text(status: i32) -> String {
    if libc::WIFEXITED(status) {
        format!("exit status {}", libc::WEXITSTATUS(status))
    } else if libc::WIFSIGNALED(status) {
        format!("signal {}", libc::WTERMSIG(status))
    } else {
        format!("status {status}")
    }
}

/// Busy for `duty` of each period, asleep for the rest.
fn spin(duty: f64, stop: &AtomicBool) -> WorkerStats {
    let cpu0 = thread_cpu_ns();
    let busy = (PERIOD_NS as f64 * duty) as u64;
    let mut x = 0x9e37_79b9_7f4a_7c15u64;
    let mut period_start = mono_ns();
    while !stop.load(Ordering::Relaxed) {
        let busy_end = period_start + busy;
        while mono_ns() < busy_end && !stop.load(Ordering::Relaxed) {
            for _ in 0..1000 {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
            }
            std::hint::black_box(x);
        }
        period_start += PERIOD_NS;
        if busy < PERIOD_NS {
            sleep_until(period_start);
        }
    }
    WorkerStats {
        cpu_ns: thread_cpu_ns() - cpu0,
        ..Default::default()
    }
}

/// Random 4 KiB writes (fdatasync every 16) or uncached reads on a private file.
fn io(path: &Path, write: bool, rate: Option<u64>, stop: &AtomicBool) -> WorkerStats {
    use std::os::unix::fs::FileExt;
    use std::os::unix::io::AsRawFd;
    let cpu0 = thread_cpu_ns();
    let mut st = WorkerStats::default();
    let file = match std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(true)
        .open(path)
    {
        Ok(f) => f,
        Err(_) => return st,
    };
    let block = vec![0x5au8; BLOCK];
    if !write {
        // Fill the file once so reads hit real blocks.
        let mut off = 0;
        while off < FILE_BYTES && !stop.load(Ordering::Relaxed) {
            let _ = file.write_at(&block, off);
            off += BLOCK as u64;
        }
        let _ = file.sync_all();
    }
    let mut buf = vec![0u8; BLOCK];
    let mut x = 0x2545_f491_4f6c_dd1du64 ^ path.as_os_str().len() as u64;
    let t0 = mono_ns();
    while !stop.load(Ordering::Relaxed) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let off = (x % (FILE_BYTES / BLOCK as u64)) * BLOCK as u64;
        let ok = if write {
            let r = file.write_at(&block, off).is_ok();
            if st.io_ops % 16 == 15 {
                let _ = file.sync_data();
            }
            r
        } else {
            if st.io_ops % 256 == 0 {
                // SAFETY: valid descriptor; 0/0 = the whole file.
                unsafe { libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED) };
            }
            file.read_at(&mut buf, off).is_ok()
        };
        if ok {
            st.io_ops += 1;
            st.io_bytes += BLOCK as u64;
        }
        if let Some(r) = rate {
            sleep_until(t0 + (st.io_bytes as u128 * 1_000_000_000 / u128::from(r)) as u64);
        }
    }
    st.cpu_ns = thread_cpu_ns() - cpu0;
    st
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_specs_and_rejects_bad_ones() {
        assert_eq!(
            parse("cpu:2:50%").unwrap(),
            vec![Load::Cpu {
                threads: 2,
                duty: 0.5
            }]
        );
        assert_eq!(
            parse("cpu").unwrap(),
            vec![Load::Cpu {
                threads: 1,
                duty: 1.0
            }]
        );
        assert_eq!(
            parse("io:1:read:4MB/s").unwrap(),
            vec![Load::Io {
                threads: 1,
                write: false,
                rate: Some(4_000_000)
            }]
        );
        assert_eq!(parse("mixed").unwrap().len(), 2);
        assert_eq!(parse("cpu:1+io:2").unwrap().len(), 2);
        for bad in [
            "gpu:1",
            "cpu:0",
            "cpu:1:0%",
            "cpu:1:150%",
            "io:1:fast",
            "cpu:x",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
        assert_eq!(describe(&parse("cpu:2:50%").unwrap()[0]), "cpu:2:50%");
    }

    #[test]
    fn load_runs_and_reports_its_own_use() {
        let dir = tempfile::tempdir().unwrap();
        let loads = parse("cpu:1:20%+io:1:write:4MB/s").unwrap();
        let r = start(&loads, Some("sleep 5"), dir.path()).unwrap();
        // Stop once the I/O load has written something (a condition, not a duration).
        let written = || {
            std::fs::read_dir(dir.path())
                .unwrap()
                .filter_map(|e| e.ok()?.metadata().ok())
                .any(|m| m.len() > 0)
        };
        while !written() {
            std::thread::yield_now();
        }
        let rep = r.stop();
        assert_eq!(rep.threads, 2);
        assert!(rep.cpu_ns > 0 && rep.io_ops > 0, "{rep:?}");
        assert!(rep.cpus_busy > 0.0, "{rep:?}");
        let cmd = rep.command.unwrap();
        assert!(cmd.ended.starts_with("stopped"), "{}", cmd.ended);
        assert!(cmd.cpu_ns.is_some());
        assert!(
            std::fs::read_dir(dir.path()).unwrap().next().is_none(),
            "files removed"
        );
    }
}

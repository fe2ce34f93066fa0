//! Import rate of the whole command: `pocketbench trace import LOG -o OUT.pbt` run as a child
//! process on generated logs ([`gen`]: a capture's `jsonl` with long statements and typed
//! arguments, the same of short statements, and a threadtime `logcat`), at each line count
//! asked (default 1 M and 4 M). For each it reports log lines per wall-second and per
//! CPU-second (user + system of the child, from `wait4`'s rusage) and the child's peak
//! resident memory (`ru_maxrss`), beside a reference measured the same way on the same file in
//! the same run (`wc -l`, a plain read that counts lines), so the ratio stays meaningful on a
//! busy machine. The page cache is warmed by the reference before the import runs.
//!
//! Run: `cargo bench --bench import [-- LINES... [jsonl|jsonl-short|logcat]...]`
//! (`POCKETBENCH_BIN=path` times another build of the command, `POCKETBENCH_BENCH_LOGS=DIR`
//! keeps the generated logs there).

mod gen;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

/// What one child process took.
struct Took {
    wall: f64,
    cpu: f64,
    rss_kib: u64,
}

/// Run `cmd` to completion, its stdout into `out`, and measure it; panics if it fails.
// The child is reaped by `wait4` (for its rusage), not `Child::wait`.
#[allow(clippy::zombie_processes)]
fn measure(cmd: &mut Command, out: &Path) -> Took {
    let file = std::fs::File::create(out).unwrap();
    let t = Instant::now();
    let child = cmd
        .stdout(Stdio::from(file))
        .stderr(Stdio::inherit())
        .spawn()
        .expect("the command starts");
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value of the plain C struct.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, writing into the two locals.
    let pid = unsafe { libc::wait4(child.id() as libc::pid_t, &mut status, 0, &mut ru) };
    let wall = t.elapsed().as_secs_f64();
    assert_eq!(pid, child.id() as libc::pid_t, "wait4");
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "{cmd:?} failed: status {status}, output in {}",
        out.display()
    );
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    Took {
        wall,
        cpu: secs(ru.ru_utime) + secs(ru.ru_stime),
        rss_kib: ru.ru_maxrss as u64,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut counts: Vec<u64> = args.iter().filter_map(|a| a.parse().ok()).collect();
    if counts.is_empty() {
        counts = vec![1_000_000, 4_000_000];
    }
    let all = ["jsonl", "jsonl-short", "logcat"];
    let mut formats: Vec<&str> = all
        .iter()
        .copied()
        .filter(|f| args.iter().any(|a| a == f))
        .collect();
    if formats.is_empty() {
        formats = all.to_vec();
    }
    // POCKETBENCH_BIN: another build of the command to time (the one beside the bench else).
    let exe = std::env::var_os("POCKETBENCH_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_pocketbench").into());
    let dir = tempfile::tempdir().expect("temporary directory");
    // POCKETBENCH_BENCH_LOGS=DIR: the generated logs are kept there (to profile the import).
    let keep = std::env::var_os("POCKETBENCH_BENCH_LOGS").map(std::path::PathBuf::from);
    println!(
        "{:<12} {:>9} {:>6} {:>8} {:>8} {:>10} {:>10} {:>8} | {:>8} {:>10} {:>7}",
        "format",
        "lines",
        "MiB",
        "wall s",
        "CPU s",
        "lines/s",
        "lines/CPUs",
        "RSS MiB",
        "wc -l s",
        "wc lines/s",
        "×wc"
    );
    for &lines in &counts {
        for &format in &formats {
            let log = keep
                .as_deref()
                .unwrap_or(dir.path())
                .join(format!("{format}-{lines}.log"));
            let g = match format {
                "jsonl" => gen::jsonl(&log, lines, false),
                "jsonl-short" => gen::jsonl(&log, lines, true),
                _ => gen::logcat(&log, lines),
            };
            let out = dir.path().join("out.pbt");
            let stdout = dir.path().join("stdout.txt");
            let wc = || measure(Command::new("wc").arg("-l").arg(&log), &stdout);
            let _ = wc(); // warms the page cache
            let reference = wc();
            let wc_lines: u64 = std::fs::read_to_string(&stdout)
                .unwrap()
                .split_whitespace()
                .next()
                .and_then(|n| n.parse().ok())
                .unwrap();
            assert_eq!(wc_lines, g.lines);
            let import = measure(
                Command::new(&exe)
                    .args(["trace", "import"])
                    .arg(&log)
                    .arg("-o")
                    .arg(&out),
                &stdout,
            );
            let said = std::fs::read_to_string(&stdout).unwrap();
            assert!(
                said.contains(&format!(": {} log lines as ", g.lines)),
                "the import read every line: {said}"
            );
            println!(
                "{:<12} {:>9} {:>6.0} {:>8.2} {:>8.2} {:>10.0} {:>10.0} {:>8.1} | {:>8.3} {:>10.0} {:>7.1}",
                format,
                g.lines,
                g.bytes as f64 / 1048576.0,
                import.wall,
                import.cpu,
                g.lines as f64 / import.wall,
                g.lines as f64 / import.cpu,
                import.rss_kib as f64 / 1024.0,
                reference.wall,
                g.lines as f64 / reference.wall,
                import.wall / reference.wall
            );
            if keep.is_none() {
                let _ = std::fs::remove_file(&log);
            }
        }
    }
}

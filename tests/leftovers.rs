//! Nothing left behind. SIGTERM or SIGHUP sent to a run's whole process group (a terminal
//! closing, a CI runner cancelling) at each point of the run, chosen by waiting for the run's
//! own progress line (loading, replaying, stored), leaves no `$TMPDIR/pocketbench-*` work
//! folder; after `kill -9`, the next `doctor` or `run` finds the folder whose process is gone,
//! says so and removes it, and never one whose process is alive — also when the owner's
//! record of its start time is not the kernel's (a run under qemu-user, which emulates
//! `/proc/self/stat`) or its PID is from another PID namespace; a PID taken over by a process
//! that started after the folder was made, or by none, is still proven gone. A `--warm` run
//! replays in a process that has a single thread (handling the signals takes none) and leaves
//! nothing behind when a signal ends that replay.

mod common;

use common::{arg, Sandbox, BIN};
use std::io::BufRead;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

/// The `pocketbench-*` entries of `dir`.
fn work_folders(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("pocketbench-"))
        .collect()
}

/// A run in a process group of its own with `TMPDIR=tmp`, and every line it prints (stdout
/// and stderr) as it prints it.
fn start_run(sb: &Sandbox, tmp: &Path) -> (Child, Receiver<String>) {
    start_run_with(
        sb,
        tmp,
        &["--records", "3000", "--ops", "3000", "--delay", "zero"],
    )
}

fn start_run_with(sb: &Sandbox, tmp: &Path, args: &[&str]) -> (Child, Receiver<String>) {
    let results = sb.results();
    let mut child = Command::new(BIN)
        .arg("run")
        .args(args)
        .args(["--results", arg(&results)])
        .current_dir(sb.path(""))
        .env("TMPDIR", tmp)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .unwrap();
    let (tx, rx) = channel();
    let out = child.stdout.take().unwrap();
    let err = child.stderr.take().unwrap();
    let tx2 = tx.clone();
    std::thread::spawn(move || {
        for l in std::io::BufReader::new(out).lines().map_while(Result::ok) {
            let _ = tx.send(l);
        }
    });
    std::thread::spawn(move || {
        for l in std::io::BufReader::new(err).lines().map_while(Result::ok) {
            let _ = tx2.send(l);
        }
    });
    (child, rx)
}

/// Wait until the run prints a line containing `marker` (the bound only keeps a broken run
/// from hanging the suite).
fn wait_for(rx: &Receiver<String>, marker: &str) {
    loop {
        match rx.recv_timeout(Duration::from_secs(120)) {
            Ok(l) if l.contains(marker) => return,
            Ok(_) => {}
            Err(e) => panic!("the run never printed {marker:?}: {e}"),
        }
    }
}

use std::os::unix::process::CommandExt;

#[test]
fn signals_to_the_whole_group_at_every_point_leave_no_work_folder() {
    let sb = Sandbox::new();
    let tmp = sb.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    for sig in [libc::SIGTERM, libc::SIGHUP] {
        for marker in ["· loading", "· replaying", "stored "] {
            let (mut child, rx) = start_run(&sb, &tmp);
            wait_for(&rx, marker);
            // SAFETY: kill(2) on the run's own process group.
            unsafe { libc::kill(-(child.id() as i32), sig) };
            child.wait().unwrap();
            assert!(
                work_folders(&tmp).is_empty(),
                "signal {sig} after {marker:?}: left {:?}",
                work_folders(&tmp)
            );
        }
    }
}

#[test]
fn a_warm_replay_runs_on_one_thread_and_a_signal_during_it_leaves_nothing() {
    let sb = Sandbox::new();
    let tmp = sb.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // 3 000 reads 1 ms apart: the replay lasts about 3 s, long after the line it starts with.
    let args = [
        "--records",
        "100",
        "--ops",
        "3000",
        "--delay",
        "fixed:1ms",
        "--warm",
    ];
    let (mut child, rx) = start_run_with(&sb, &tmp, &args);
    wait_for(&rx, "· replaying 3000 operations in this process (warm)");
    let status = std::fs::read_to_string(format!("/proc/{}/status", child.id())).unwrap();
    let threads = status
        .lines()
        .find_map(|l| l.strip_prefix("Threads:"))
        .map(str::trim);
    assert_eq!(threads, Some("1"), "{status}");
    // SAFETY: kill(2) on the run's own process group.
    unsafe { libc::kill(-(child.id() as i32), libc::SIGTERM) };
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(child.wait().unwrap().signal(), Some(libc::SIGTERM));
    assert!(work_folders(&tmp).is_empty(), "{:?}", work_folders(&tmp));
}

#[test]
fn folders_left_by_kill_9_are_found_and_removed_but_never_a_live_ones() {
    let sb = Sandbox::new();
    let tmp = sb.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // A work folder of a live process (this test's): never touched.
    let live = tmp.join("pocketbench-live");
    std::fs::create_dir(&live).unwrap();
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap();
    let start = stat[stat.rfind(')').unwrap() + 1..]
        .split_whitespace()
        .nth(19)
        .unwrap()
        .to_string();
    std::fs::write(
        live.join(".pocketbench-owner"),
        format!("{} {start}\n", std::process::id()),
    )
    .unwrap();

    for sweeper in [
        &["doctor"][..],
        &["run", "--records", "10", "--ops", "10"][..],
    ] {
        let (mut child, rx) = start_run(&sb, &tmp);
        wait_for(&rx, "· replaying");
        // SAFETY: kill(2) on the run's own process group.
        unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
        child.wait().unwrap();
        let left: Vec<String> = work_folders(&tmp)
            .into_iter()
            .filter(|n| n != "pocketbench-live")
            .collect();
        assert_eq!(left.len(), 1, "kill -9 leaves its folder: {left:?}");
        let results = sb.results();
        let out = common::pb_with(sweeper, |c| {
            c.current_dir(sb.path(""))
                .env("TMPDIR", &tmp)
                .args(["--results", arg(&results)]);
        });
        assert!(
            out.stderr.contains(&left[0]) && out.stderr.contains("which is gone: removed"),
            "{sweeper:?}: {}",
            out.stderr
        );
        assert_eq!(work_folders(&tmp), ["pocketbench-live"], "{sweeper:?}");
    }
}

/// The boot clock now in milliseconds (`/proc/uptime`, which counts suspend as the kernel's
/// process start times do).
fn boot_clock_ms() -> u64 {
    let text = std::fs::read_to_string("/proc/uptime").unwrap();
    let secs: f64 = text.split_whitespace().next().unwrap().parse().unwrap();
    (secs * 1000.0) as u64
}

/// An owner file in a new folder `tmp/pocketbench-NAME`.
fn folder_owned(tmp: &Path, name: &str, owner: &str) -> std::path::PathBuf {
    let dir = tmp.join(format!("pocketbench-{name}"));
    std::fs::create_dir(&dir).unwrap();
    std::fs::write(dir.join(".pocketbench-owner"), owner).unwrap();
    dir
}

#[test]
fn a_live_owner_is_kept_whatever_start_time_it_recorded_and_a_reused_pid_is_gone() {
    let sb = Sandbox::new();
    let tmp = sb.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let me = std::process::id();
    let boot = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").unwrap();
    let boot = boot.trim();
    let ns = std::fs::read_link("/proc/self/ns/pid").unwrap();
    let ns = ns.to_str().unwrap();
    let now = boot_clock_ms();
    // Under qemu-user, `/proc/self/stat` is qemu's: a run records a start time (here 1 and 0)
    // the kernel never shows for it. This test process is alive and started before these files
    // were written: kept, in the short form and in the one with boot records.
    let qemu_short = folder_owned(&tmp, "qemu-short", &format!("{me} 1\n"));
    let qemu_full = folder_owned(
        &tmp,
        "qemu-full",
        &format!("{me} 0\nboot-id {boot}\npid-ns {ns}\nwritten-boottime-ms {now}\n"),
    );
    // A run in another PID namespace sharing this temporary directory: its PID names another
    // process here (this one) or none.
    let other_ns =
        |pid: u64| format!("{pid} 1\nboot-id {boot}\npid-ns pid:[1]\nwritten-boottime-ms {now}\n");
    let ns_live = folder_owned(&tmp, "ns-live", &other_ns(u64::from(me)));
    let ns_none = folder_owned(&tmp, "ns-none", &other_ns(4194305));
    // Proven gone: a PID that no process has (pid_max is at most 2^22), a PID taken over by a
    // process started after the file was written (one second after, by its boot-clock record;
    // an hour after, by the modification time of a file in the short form), and a folder of
    // an earlier boot.
    let mut reuser = Command::new("cat").stdin(Stdio::piped()).spawn().unwrap();
    let pid = reuser.id();
    let gone_none = folder_owned(&tmp, "gone-none", "4194305 1\n");
    let gone_reused = folder_owned(
        &tmp,
        "gone-reused",
        &format!(
            "{pid} 1\nboot-id {boot}\npid-ns {ns}\nwritten-boottime-ms {}\n",
            now - 1000
        ),
    );
    let gone_short = folder_owned(&tmp, "gone-short", &format!("{pid} 1\n"));
    let hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(gone_short.join(".pocketbench-owner"))
        .unwrap()
        .set_modified(hour_ago)
        .unwrap();
    let gone_boot = folder_owned(
        &tmp,
        "gone-boot",
        &format!("{me} 1\nboot-id 00000000-0000-0000-0000-000000000000\npid-ns {ns}\n"),
    );

    let results = sb.results();
    let out = common::pb_with(["doctor"], |c| {
        c.current_dir(sb.path(""))
            .env("TMPDIR", &tmp)
            .args(["--results", arg(&results)]);
    });
    drop(reuser.stdin.take());
    reuser.wait().unwrap();
    for kept in [&qemu_short, &qemu_full, &ns_live, &ns_none] {
        assert!(kept.exists(), "{kept:?} was removed: {}", out.stderr);
    }
    for gone in [&gone_none, &gone_reused, &gone_short, &gone_boot] {
        assert!(!gone.exists(), "{gone:?} was kept: {}", out.stderr);
        assert!(
            out.stderr
                .contains(&format!("{} was left by process", gone.display())),
            "{}",
            out.stderr
        );
    }
    assert_eq!(
        out.stderr.matches("which is gone: removed").count(),
        4,
        "{}",
        out.stderr
    );
}

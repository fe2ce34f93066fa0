//! Nothing left behind. SIGTERM or SIGHUP sent to a run's whole process group (a terminal
//! closing, a CI runner cancelling) at each point of the run, chosen by waiting for the run's
//! own progress line (loading, replaying, stored), leaves no `$TMPDIR/pocketbench-*` work
//! folder; after `kill -9`, the next `doctor`, `run` or `matrix` finds the folder whose
//! process is gone, says so and removes it, and never one whose process is alive — also when
//! the owner's record of its start time is not the kernel's (a run under qemu-user, which emulates
//! `/proc/self/stat`) or its PID is from another PID namespace; a PID taken over by a process
//! that started after the folder was made, or by none, is still proven gone. A `--warm` run
//! replays in a process that has a single thread (handling the signals takes none) and leaves
//! nothing behind when a signal ends that replay. `trace import` and `capture` leave nothing
//! either: an import stopped while it works (or while it waits to deliver into a FIFO nobody
//! reads) leaves no work folder and no output; a captured program gets the signal, the log of
//! what it did is written and `capture` ends with the program's status, its preload library
//! gone from `$TMPDIR`.

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
    let mut all = vec!["run"];
    all.extend_from_slice(args);
    all.extend(["--results", arg(&results)]);
    start(sb, tmp, &all)
}

/// `pocketbench ARGS` in a process group of its own with `TMPDIR=tmp`, and every line it
/// prints (stdout and stderr) as it prints it.
fn start(sb: &Sandbox, tmp: &Path, args: &[&str]) -> (Child, Receiver<String>) {
    let mut child = Command::new(BIN)
        .args(args)
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

    std::fs::write(
        sb.path("plan.toml"),
        "repeats = 1\n[axes]\nrecords = [10]\nops = [10]\n",
    )
    .unwrap();
    for sweeper in [
        &["doctor"][..],
        &["run", "--records", "10", "--ops", "10"][..],
        &["matrix", "plan.toml", "--resume"][..],
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

/// Entries of `dir` whose names start with `prefix`.
fn entries(dir: &Path, prefix: &str) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix))
        .collect()
}

#[test]
fn a_signalled_import_leaves_no_work_folder_and_no_output() {
    let sb = Sandbox::new();
    let tmp = sb.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // A capture log big enough to be mid-way when the signal comes.
    let mut log = String::new();
    for i in 0..200_000 {
        log.push_str(&format!(
            "{{\"statement\":{{\"t_ns\":{},\"dur_ns\":900,\"conn\":\"0x1\",\"sql\":\"INSERT INTO t(a) VALUES (?)\",\"args\":[{i}]}}}}\n",
            1_000 + i * 1_000
        ));
    }
    std::fs::write(sb.path("app.jsonl"), log).unwrap();
    // Into a FIFO nobody reads: the import's work folder goes to $TMPDIR and the finished
    // trace waits there for a reader, so the signal finds the folder whenever it comes.
    let fifo = sb.path("out.fifo");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) on a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
    for sig in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT] {
        for (out, folder_in) in [
            (sb.path("app.pbt"), sb.path("")),
            (fifo.clone(), tmp.clone()),
        ] {
            let (mut child, _rx) = start(
                &sb,
                &tmp,
                &["trace", "import", "app.jsonl", "-o", arg(&out)],
            );
            // The work folder exists from the first pass's end to the delivery.
            while entries(&folder_in, ".pocketbench-import-").is_empty() {
                if let Some(status) = child.try_wait().unwrap() {
                    panic!("the import ended ({status}) before its work folder was seen");
                }
                std::thread::yield_now();
            }
            // SAFETY: kill(2) on the import's own process group.
            unsafe { libc::kill(-(child.id() as i32), sig) };
            use std::os::unix::process::ExitStatusExt;
            let status = child.wait().unwrap();
            assert!(
                status.signal() == Some(sig) || status.code() == Some(128 + sig),
                "signal {sig}: {status}"
            );
            assert!(entries(&sb.path(""), ".pocketbench-import-").is_empty());
            assert!(entries(&tmp, ".pocketbench-import-").is_empty());
            assert!(
                !sb.path("app.pbt").exists(),
                "signal {sig}: a half-made trace"
            );
            let left = entries(&sb.path(""), ".app.pbt");
            assert!(left.is_empty(), "signal {sig}: {left:?}");
        }
    }
}

#[test]
fn a_signalled_capture_passes_it_on_writes_the_log_and_ends_as_the_program() {
    let sb = Sandbox::new();
    let tmp = sb.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // A program that writes one row, says so, then waits for a line that never comes.
    std::fs::write(
        sb.path("app.py"),
        "import sqlite3, sys\n\
         c = sqlite3.connect('app.db')\n\
         c.execute('CREATE TABLE t(a)')\n\
         c.execute('INSERT INTO t VALUES (1)')\n\
         c.commit()\n\
         print('ready', flush=True)\n\
         sys.stdin.readline()\n",
    )
    .unwrap();
    for sig in [libc::SIGTERM, libc::SIGHUP] {
        let (mut child, rx) = start(
            &sb,
            &tmp,
            &["capture", "-o", "app.jsonl", "--", "python3", "app.py"],
        );
        wait_for(&rx, "ready");
        // SAFETY: kill(2) on the capture's own process group (pocketbench and the program).
        unsafe { libc::kill(-(child.id() as i32), sig) };
        let status = child.wait().unwrap();
        assert_eq!(status.code(), Some(128 + sig), "signal {sig}: {status}");
        let log = std::fs::read_to_string(sb.path("app.jsonl")).unwrap();
        assert!(log.contains("INSERT INTO t VALUES (1)"), "{log}");
        assert!(entries(&tmp, "pocketbench-capture-").is_empty());
        std::fs::remove_file(sb.path("app.db")).unwrap();
    }
}

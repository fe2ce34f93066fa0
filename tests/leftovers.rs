//! Nothing left behind. SIGTERM or SIGHUP sent to a run's whole process group (a terminal
//! closing, a CI runner cancelling) at each point of the run, chosen by waiting for the run's
//! own progress line (loading, replaying, stored), leaves no `$TMPDIR/pocketbench-*` work
//! folder; after `kill -9`, the next `doctor` or `run` finds the folder whose process is gone,
//! says so and removes it, and never one whose process is alive. A `--warm` run replays in a
//! process that has a single thread (handling the signals takes none) and leaves nothing
//! behind when a signal ends that replay.

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

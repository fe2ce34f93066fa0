//! A measured run is never lost to a full disk, and a refused one creates nothing. Real small
//! file systems (tmpfs, mounted by the test; skipped with a reason when not root, CI runs as
//! root) are filled at the moment a finished run is stored (the `POCKETBENCH_TEST_BEFORE_STORE`
//! hook):
//! the run goes to a spool file beside the store, else in `$TMPDIR`, else in `$HOME`, else is
//! printed whole as JSON on stdout, and no place that failed keeps a file. A work folder
//! (`--dir`) that fills while the replay writes its samples sends the rest to a spill folder
//! on another file system: every sample is stored and the run says where they went; a `--raw`
//! CSV that fills its disk fails alone, after the run is stored, and says so.

mod common;

use common::mounts::{is_root, Tmpfs};
use common::{arg, pb_with, spool_named, Outcome, Sandbox};
use std::path::Path;

/// What the tests do with a mounted tmpfs.
trait Disk {
    fn fill(&self, keep: u64);
    fn unfill(&self);
    fn spools(&self) -> Vec<(String, u64)>;
    fn names(&self) -> Vec<String>;
}

impl Disk for Tmpfs {
    /// Fill it, leaving about `keep` bytes free.
    fn fill(&self, keep: u64) {
        let free = fs2_free(&self.0);
        let f = std::fs::File::create(self.0.join("filler")).unwrap();
        f.set_len(0).unwrap();
        use std::io::Write;
        let mut w = std::io::BufWriter::new(f);
        let block = vec![1u8; 4096];
        let mut left = free.saturating_sub(keep);
        while left >= 4096 && w.write_all(&block).is_ok() {
            left -= 4096;
        }
        let _ = w.flush();
    }

    fn unfill(&self) {
        for name in ["filler", ".pocketbench-fill"] {
            let _ = std::fs::remove_file(self.0.join(name));
        }
    }

    /// Spool stores here (`*.spool-*.db`), each with its size.
    fn spools(&self) -> Vec<(String, u64)> {
        std::fs::read_dir(&self.0)
            .unwrap()
            .flatten()
            .filter(|e| {
                let n = e.file_name().to_string_lossy().into_owned();
                n.contains(".spool-") && n.ends_with(".db")
            })
            .map(|e| {
                (
                    e.file_name().to_string_lossy().into_owned(),
                    e.metadata().unwrap().len(),
                )
            })
            .collect()
    }

    fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

fn fs2_free(dir: &Path) -> u64 {
    let out = std::process::Command::new("df")
        .args(["-B1", "--output=avail", arg(dir)])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .nth(1)
        .unwrap()
        .trim()
        .parse()
        .unwrap()
}

const RUN: [&str; 7] = ["run", "--records", "10", "--ops", "20", "--delay", "zero"];

/// `run` storing into `store`, with `$TMPDIR` and `$HOME` set and `fill` filled at store time.
fn run(sb: &Sandbox, store: &Path, tmp: &Path, home: &Path, fill: &[&Path]) -> Outcome {
    let fill: Vec<String> = fill
        .iter()
        .map(|d| format!("cat /dev/zero > '{}/.pocketbench-fill';", d.display()))
        .collect();
    pb_with([&RUN[..], &["--results", arg(store)]].concat(), |c| {
        c.current_dir(sb.path(""))
            .env("TMPDIR", tmp)
            .env("HOME", home);
        if !fill.is_empty() {
            c.env("POCKETBENCH_TEST_BEFORE_STORE", fill.concat());
        }
    })
}

/// The spool file named in the run's error, checked to hold the one run.
fn kept_in(out: &Outcome) -> String {
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    let spool = spool_named(out);
    assert_eq!(common::stored_runs(Path::new(&spool)), 1, "{spool}");
    spool
}

#[test]
fn a_run_outlives_a_full_disk_in_tmpdir_then_home_then_on_stdout() {
    if !is_root() {
        eprintln!("skipped: mounting a small file system needs root");
        return;
    }
    let sb = Sandbox::new();
    let (a, t, h) = (
        Tmpfs::mount(sb.path("a"), "4m"),
        Tmpfs::mount(sb.path("t"), "16m"),
        Tmpfs::mount(sb.path("h"), "4m"),
    );
    let store = a.0.join("s.db");

    // The store's disk fills: spooled in $TMPDIR, nothing left beside the store.
    let out = run(&sb, &store, &t.0, &h.0, &[&a.0]);
    assert!(kept_in(&out).starts_with(arg(&t.0)), "{}", out.stderr);
    assert!(a.spools().is_empty(), "{:?}", a.names());
    a.unfill();

    // The store's disk and $TMPDIR's fill: spooled in $HOME.
    let out = run(&sb, &store, &t.0, &h.0, &[&a.0, &t.0]);
    assert!(kept_in(&out).starts_with(arg(&h.0)), "{}", out.stderr);
    assert!(a.spools().is_empty(), "{:?}", a.names());
    assert_eq!(t.spools().len(), 1, "only the first run's: {:?}", t.names());
    a.unfill();
    t.unfill();

    // Everything fills: the whole result is printed as JSON on stdout, and said so.
    let out = run(&sb, &store, &t.0, &h.0, &[&a.0, &t.0, &h.0]);
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        out.stderr.contains("printed as JSON on stdout"),
        "{}",
        out.stderr
    );
    let v = out.json();
    assert_eq!(v["ops"], 20, "{v:#}");
    assert!(a.spools().is_empty() && h.spools().len() == 1 && t.spools().len() == 1);
    for fs in [&a, &t, &h] {
        assert!(
            fs.spools().iter().all(|(_, len)| *len > 0),
            "{:?}",
            fs.spools()
        );
    }
}

#[test]
fn a_refused_run_on_a_full_disk_creates_nothing_and_names_the_cause() {
    if !is_root() {
        eprintln!("skipped: mounting a small file system needs root");
        return;
    }
    let sb = Sandbox::new();
    let d = Tmpfs::mount(sb.path("d"), "3m");
    let store = d.0.join("s.db");
    let tmp = sb.path("");

    // Nearly full: room for the store, not for a run of 10 000 operations' samples.
    d.fill(1_600_000);
    let big = [&RUN[..4], &["10000", "--results", arg(&store)]].concat();
    let out = pb_with(big, |c| {
        c.current_dir(&tmp);
    });
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("free"), "{}", out.stderr);
    assert_eq!(d.names(), ["filler"]);

    // Full: refused before SQLite creates anything, naming the full file system.
    d.unfill();
    d.fill(0);
    let out = run(&sb, &store, &tmp, &tmp, &[]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("free"), "{}", out.stderr);
    assert_eq!(d.names(), ["filler"]);

    // An existing store on a file system that is full: refused the same, no -wal or -shm.
    d.unfill();
    run(&sb, &store, &tmp, &tmp, &[]).expect_ok();
    d.fill(0);
    let out = run(&sb, &store, &tmp, &tmp, &[]);
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out.stderr.contains("free"), "{}", out.stderr);
    assert_eq!(d.names(), ["filler", "s.db"]);
}

#[test]
fn a_work_folder_that_fills_during_the_replay_loses_no_sample() {
    if !is_root() {
        eprintln!("skipped: mounting a small file system needs root");
        return;
    }
    let sb = Sandbox::new();
    let tmp = sb.path("tmp");
    std::fs::create_dir(&tmp).unwrap();
    // 20 000 samples of 154 bytes are about 3 MB: more than the 2 MiB work folder holds.
    let work = Tmpfs::mount(sb.path("work"), "2m");
    let store = sb.results();
    let out = pb_with(
        [
            "run",
            "--records",
            "100",
            "--ops",
            "20000",
            "--delay",
            "zero",
            "--no-overhead",
            "--dir",
            arg(&work.0.join("d")),
            "--results",
            arg(&store),
        ],
        |c| {
            c.current_dir(sb.path("")).env("TMPDIR", &tmp);
        },
    )
    .expect_ok();
    assert!(
        out.stderr
            .contains("the work folder filled during the replay")
            && out.stderr.contains("No space left on device")
            && out.stderr.contains("none was lost"),
        "{}",
        out.stderr
    );
    assert_eq!(common::stored_samples(&store, 1), 20_000);
    // The spill folder went with the stored run.
    let left: Vec<_> = std::fs::read_dir(&tmp).unwrap().flatten().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_raw_csv_that_fills_its_disk_costs_only_itself() {
    if !is_root() {
        eprintln!("skipped: mounting a small file system needs root");
        return;
    }
    let sb = Sandbox::new();
    // 3 000 rows of the CSV are far more than 64 KiB.
    let small = Tmpfs::mount(sb.path("small"), "64k");
    let store = sb.results();
    let raw = small.0.join("ops.csv");
    let out = pb_with(
        [
            "run",
            "--records",
            "100",
            "--ops",
            "3000",
            "--delay",
            "zero",
            "--no-overhead",
            "--raw",
            arg(&raw),
            "--results",
            arg(&store),
        ],
        |c| {
            c.current_dir(sb.path(""));
        },
    );
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(
        out.stderr.contains("No space left on device")
            && out.stderr.contains("the run itself is stored as #1"),
        "{}",
        out.stderr
    );
    assert_eq!(common::stored_runs(&store), 1);
    assert_eq!(small.names(), Vec::<String>::new());
}

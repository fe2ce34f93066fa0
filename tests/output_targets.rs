//! Outputs never destroy what they are pointed at. Every output option of every command
//! (`run --raw`, `run --flash-trace`, `trace gen -o`, `report -o`, `results show -o`,
//! `flashbench --csv`/`--requests-csv`, `models --csv`) is aimed at each kind of target:
//! a character device (`mknod c 1 3`, the null device) and a FIFO are written into and stay what
//! they were (the FIFO's reader gets the bytes); a socket or a directory is refused with exit 2
//! before any work and is left in place.

mod common;

use common::{arg, Sandbox};
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;

/// One output option: the command line with `{}` where the output path goes and `{r}` where
/// the results store goes.
struct Case {
    name: &'static str,
    args: &'static [&'static str],
    /// The command needs a results store holding one run (report, results show).
    needs_run: bool,
}

const CASES: &[Case] = &[
    Case {
        name: "run --raw",
        args: &[
            "run",
            "--records",
            "10",
            "--ops",
            "10",
            "--delay",
            "zero",
            "--raw",
            "{}",
            "--results",
            "{r}",
        ],
        needs_run: false,
    },
    Case {
        name: "run --flash-trace",
        args: &[
            "run",
            "--records",
            "10",
            "--ops",
            "10",
            "--delay",
            "zero",
            "--flash-trace",
            "{}",
            "--results",
            "{r}",
        ],
        needs_run: false,
    },
    Case {
        name: "trace gen -o",
        args: &["trace", "gen", "--ops", "100", "-o", "{}"],
        needs_run: false,
    },
    Case {
        name: "report -o",
        args: &["report", "--format", "csv", "-o", "{}", "--results", "{r}"],
        needs_run: true,
    },
    Case {
        name: "results show -o",
        args: &[
            "results",
            "show",
            "1",
            "--format",
            "json",
            "-o",
            "{}",
            "--results",
            "{r}",
        ],
        needs_run: true,
    },
    Case {
        name: "flashbench --csv",
        args: &[
            "flashbench",
            "--requests",
            "insert",
            "--sizes",
            "150",
            "--counts",
            "5",
            "--flash",
            "capacity_mib=16",
            "--csv",
            "{}",
            "--results",
            "{r}",
        ],
        needs_run: false,
    },
    Case {
        name: "flashbench --requests-csv",
        args: &[
            "flashbench",
            "--requests",
            "insert",
            "--sizes",
            "150",
            "--counts",
            "5",
            "--flash",
            "capacity_mib=16",
            "--requests-csv",
            "{}",
            "--results",
            "{r}",
        ],
        needs_run: false,
    },
    Case {
        name: "models --csv",
        args: &[
            "models",
            "--tuples",
            "5",
            "--engines",
            "sqlite",
            "-q",
            "--csv",
            "{}",
            "--results",
            "{r}",
        ],
        needs_run: false,
    },
];

/// A results store holding one run when `case` reads one (report, results show).
fn prepare(sb: &Sandbox, case: &Case) {
    let results = sb.results();
    if case.needs_run && !results.exists() {
        let mut args = vec!["run", "--records", "10", "--ops", "10", "--delay", "zero"];
        args.extend(["--results", arg(&results)]);
        sb.pb(args).expect_ok();
    }
}

/// `pocketbench CASE` with the output at `target`, in `sb`, with its own results store.
fn run_case(sb: &Sandbox, case: &Case, target: &Path) -> common::Outcome {
    prepare(sb, case);
    let results = sb.results();
    let args = case.args.iter().map(|a| match *a {
        "{}" => arg(target),
        "{r}" => arg(&results),
        a => a,
    });
    sb.pb(args.collect::<Vec<_>>())
}

fn is_root() -> bool {
    std::fs::metadata("/proc/self")
        .map(|m| std::os::unix::fs::MetadataExt::uid(&m) == 0)
        .unwrap_or(false)
}

#[test]
fn a_character_device_is_written_into_not_replaced() {
    if !is_root() {
        eprintln!("skipped: creating a character device (mknod) needs root");
        return;
    }
    let sb = Sandbox::new();
    let dev = sb.path("null");
    let status = std::process::Command::new("mknod")
        .args([arg(&dev), "c", "1", "3"])
        .status()
        .expect("mknod");
    assert!(status.success());
    for case in CASES {
        run_case(&sb, case, &dev).expect_ok();
        let t = std::fs::metadata(&dev).unwrap().file_type();
        assert!(t.is_char_device(), "{}: the device was replaced", case.name);
        assert!(!sb.path("null.partial").exists(), "{}", case.name);
    }
}

#[test]
fn a_fifo_is_written_into_and_its_reader_gets_the_output() {
    let sb = Sandbox::new();
    for (i, case) in CASES.iter().enumerate() {
        let fifo = sb.path(&format!("fifo{i}"));
        let c = std::ffi::CString::new(arg(&fifo)).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let path = fifo.clone();
        let reader = std::thread::spawn(move || {
            let mut bytes = Vec::new();
            std::fs::File::open(path)
                .unwrap()
                .read_to_end(&mut bytes)
                .unwrap();
            bytes
        });
        run_case(&sb, case, &fifo).expect_ok();
        let t = std::fs::metadata(&fifo).unwrap().file_type();
        // (Were it replaced, the reader would wait forever: it is left behind, not joined.)
        assert!(t.is_fifo(), "{}: the FIFO was replaced", case.name);
        let bytes = reader.join().unwrap();
        assert!(
            !bytes.is_empty(),
            "{}: nothing came through the FIFO",
            case.name
        );
    }
}

#[test]
fn a_socket_or_a_directory_is_refused_before_any_work() {
    let sb = Sandbox::new();
    let sock = sb.path("sock");
    let _listener = std::os::unix::net::UnixListener::bind(&sock).unwrap();
    let dir = sb.path("adir");
    std::fs::create_dir(&dir).unwrap();
    for case in CASES {
        for (target, what) in [(&sock, "is a socket"), (&dir, "is a directory")] {
            // results show -o DIR writes the export into the directory: not a refusal.
            if case.name == "results show -o" && target == &dir {
                continue;
            }
            prepare(&sb, case);
            let before = sb.results().exists();
            let out = run_case(&sb, case, target).expect_code(2);
            assert!(out.stderr.contains(what), "{}: {}", case.name, out.stderr);
            assert_eq!(
                out.stderr.lines().count(),
                1,
                "{}: {}",
                case.name,
                out.stderr
            );
            assert_eq!(
                sb.results().exists(),
                before,
                "{}: a store was created",
                case.name
            );
        }
        assert!(std::fs::metadata(&sock).unwrap().file_type().is_socket());
        assert!(dir.is_dir() && std::fs::read_dir(&dir).unwrap().next().is_none());
    }
}

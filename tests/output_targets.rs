//! One rule for every output. Every output option of every command (`run --raw`,
//! `run --flash-trace`, `trace gen -o`, `trace import -o`, `report -o`, `results show -o`,
//! `flashbench --csv`/`--requests-csv`, `models --csv`, `capture -o`) is aimed at each kind of
//! target, and afterwards the target is still the kind it was and holds (or passed on) the
//! data, and nothing else:
//! - a regular file, a new path, and a symbolic link to a file (the link stays a link, the file
//!   it names gets the data);
//! - a FIFO (its reader gets the data), `/dev/null`, a character device made with mknod (as
//!   root), and `/dev/full` (a clear failure, the device left alone);
//! - standard output, as `-` into a pipe, and through a link to `/proc/self/fd/1` with standard
//!   output redirected to a file: the data arrives alone, every human line goes to stderr, and
//!   the link is not replaced (a link in the sandbox stands in for the system's `/dev/stdout`);
//! - a directory: refused with exit 2 before any work (`results show -o DIR` writes
//!   `DIR/run-1.json` into it instead).

mod common;

use common::mounts::is_root;
use common::{arg, words, Sandbox};
use std::io::Read;
use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Stdio;

/// What an output holds.
#[derive(Clone, Copy)]
enum Data {
    Trace,
    FlashTrace,
    Csv,
    Json,
    Jsonl,
}

/// One output option: the command line with `{}` where the output path goes, `{r}` where the
/// results store goes and `{s}` for the sandbox.
struct Case {
    name: &'static str,
    args: &'static str,
    data: Data,
    /// The command needs a results store holding one run (report, results show).
    needs_run: bool,
}

const RUN: &str = "run --records 10 --ops 10 --delay zero --results {r}";
const FLASHBENCH: &str =
    "flashbench --requests insert --sizes 150 --counts 5 --flash capacity_mib=16 --results {r}";

fn cases() -> Vec<Case> {
    let case = |name, args: String, data, needs_run| Case {
        name,
        args: args.leak(),
        data,
        needs_run,
    };
    vec![
        case("run --raw", format!("{RUN} --raw {{}}"), Data::Csv, false),
        case(
            "run --flash-trace",
            format!("{RUN} --flash-trace {{}}"),
            Data::FlashTrace,
            false,
        ),
        case(
            "trace gen -o",
            "trace gen --ops 100 -o {}".into(),
            Data::Trace,
            false,
        ),
        case(
            "trace import -o",
            "trace import {s}/app.jsonl -o {}".into(),
            Data::Trace,
            false,
        ),
        case(
            "report -o",
            "report --format csv -o {} --results {r}".into(),
            Data::Csv,
            true,
        ),
        case(
            "results show -o",
            "results show 1 --format json -o {} --results {r}".into(),
            Data::Json,
            true,
        ),
        case(
            "flashbench --csv",
            format!("{FLASHBENCH} --csv {{}}"),
            Data::Csv,
            false,
        ),
        case(
            "flashbench --requests-csv",
            format!("{FLASHBENCH} --requests-csv {{}}"),
            Data::Csv,
            false,
        ),
        case(
            "models --csv",
            "models --tuples 5 --engines sqlite -q --csv {} --results {r}".into(),
            Data::Csv,
            false,
        ),
        case(
            "capture -o",
            "capture -o {} -- sqlite3 {s}/app.db create~table~if~not~exists~t(a);insert~into~t~values(1);"
                .into(),
            Data::Jsonl,
            false,
        ),
    ]
}

/// A statement log for `trace import`, and a results store holding one run when `case` reads
/// one (report, results show).
fn prepare(sb: &Sandbox, case: &Case) {
    if !sb.path("app.jsonl").exists() {
        sb.write(
            "app.jsonl",
            concat!(
                r#"{"statement":{"t_ns":1000,"dur_ns":10,"conn":"c1","db":"/a.db","sql":"CREATE TABLE t(a)","rows":0,"status":101}}"#,
                "\n",
                r#"{"statement":{"t_ns":2000,"dur_ns":10,"conn":"c1","db":"/a.db","sql":"INSERT INTO t VALUES(1)","rows":1,"status":101}}"#,
                "\n"
            ),
        );
    }
    let results = sb.results();
    if case.needs_run && !results.exists() {
        let mut args = vec!["run", "--records", "10", "--ops", "10", "--delay", "zero"];
        args.extend(["--results", arg(&results)]);
        sb.pb(args).expect_ok();
    }
}

/// The command line of `case` with the output at `target`.
fn args_of(sb: &Sandbox, case: &Case, target: &str) -> Vec<String> {
    prepare(sb, case);
    let (results, dir) = (sb.results(), sb.path(""));
    words(case.args)
        .into_iter()
        .map(|a| {
            a.replace("{}", target)
                .replace("{r}", arg(&results))
                .replace("{s}", arg(&dir).trim_end_matches('/'))
                .replace('~', " ")
        })
        .collect()
}

/// `pocketbench CASE` with the output at `target`, in `sb`, with its own results store.
fn run_case(sb: &Sandbox, case: &Case, target: &Path) -> common::Outcome {
    sb.pb(args_of(sb, case, arg(target)))
}

/// Whether `bytes` are the whole data of `case` and nothing else (no human line mixed in).
fn assert_data(case: &Case, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    let ok = match case.data {
        Data::Trace => bytes.starts_with(b"PBTRACE\n"),
        Data::FlashTrace => bytes.starts_with(b"PBFLASH1"),
        Data::Csv => text.lines().next().is_some_and(|l| l.contains(',')),
        Data::Json => serde_json::from_slice::<serde_json::Value>(bytes).is_ok(),
        Data::Jsonl => {
            text.lines().count() >= 2
                && text
                    .lines()
                    .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
        }
    };
    assert!(ok, "{}: not its data alone:\n{text}", case.name);
    for human in ["wrote ", "captured ", "stored ", "run #"] {
        assert!(
            !text.contains(human),
            "{}: {human:?} in the data",
            case.name
        );
    }
}

#[test]
fn a_file_a_new_path_and_a_link_to_a_file_get_the_data() {
    let sb = Sandbox::new();
    for (i, case) in cases().iter().enumerate() {
        let (file, new, real, link) = (
            sb.write(&format!("old{i}"), "old contents\n"),
            sb.path(&format!("new{i}")),
            sb.write(&format!("real{i}"), "old contents\n"),
            sb.path(&format!("link{i}")),
        );
        std::os::unix::fs::symlink(format!("real{i}"), &link).unwrap();
        for target in [&file, &new, &link] {
            run_case(&sb, case, target).expect_ok();
        }
        for path in [&file, &new, &real] {
            assert!(std::fs::symlink_metadata(path).unwrap().is_file());
            assert_data(case, &std::fs::read(path).unwrap());
        }
        let l = std::fs::symlink_metadata(&link).unwrap();
        assert!(
            l.file_type().is_symlink(),
            "{}: the link was replaced",
            case.name
        );
    }
}

#[test]
fn a_fifo_is_written_into_and_its_reader_gets_the_data() {
    let sb = Sandbox::new();
    for (i, case) in cases().iter().enumerate() {
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
        assert_data(case, &reader.join().unwrap());
    }
}

#[test]
fn the_null_device_takes_the_data_and_stays_a_device() {
    let sb = Sandbox::new();
    let mut devices = vec![std::path::PathBuf::from("/dev/null")];
    if is_root() {
        let dev = sb.path("null");
        let status = std::process::Command::new("mknod")
            .args([arg(&dev), "c", "1", "3"])
            .status()
            .expect("mknod");
        assert!(status.success());
        devices.push(dev);
    } else {
        eprintln!("not root: no character device of the sandbox's own (mknod)");
    }
    for case in &cases() {
        for dev in &devices {
            run_case(&sb, case, dev).expect_ok();
            let t = std::fs::metadata(dev).unwrap().file_type();
            assert!(t.is_char_device(), "{}: the device was replaced", case.name);
        }
        assert!(!sb.path("null.partial").exists(), "{}", case.name);
    }
}

#[test]
fn a_full_device_is_a_clear_failure_and_stays_a_device() {
    let sb = Sandbox::new();
    for case in &cases() {
        let out = run_case(&sb, case, Path::new("/dev/full"));
        assert!(
            matches!(out.code, Some(1 | 2)),
            "{}: {:?} {}",
            case.name,
            out.code,
            out.stderr
        );
        assert!(
            out.stderr.contains("No space left on device"),
            "{}: {}",
            case.name,
            out.stderr
        );
        let t = std::fs::metadata("/dev/full").unwrap().file_type();
        assert!(t.is_char_device());
    }
}

#[test]
fn standard_output_as_a_pipe_carries_the_data_alone() {
    let sb = Sandbox::new();
    for case in &cases() {
        let args = args_of(&sb, case, "-");
        let out = common::pb_with(&args, |c| {
            c.current_dir(sb.path(""));
        });
        let out = out.expect_ok();
        assert_data(case, out.stdout.as_bytes());
        assert!(
            !sb.path("-").exists(),
            "{}: wrote a file named -",
            case.name
        );
    }
}

#[test]
fn a_link_to_standard_output_redirected_to_a_file_streams_into_that_file() {
    let sb = Sandbox::new();
    // The sandbox's stand-in for the system's /dev/stdout.
    let link = sb.path("stdout");
    std::os::unix::fs::symlink("/proc/self/fd/1", &link).unwrap();
    for (i, case) in cases().iter().enumerate() {
        let into = sb.path(&format!("redirected{i}"));
        let file = std::fs::File::create(&into).unwrap();
        let args = args_of(&sb, case, arg(&link));
        let out = common::pb_with(&args, |c| {
            c.current_dir(sb.path("")).stdout(Stdio::from(file));
        });
        out.expect_ok();
        let l = std::fs::symlink_metadata(&link).unwrap();
        assert!(
            l.file_type().is_symlink(),
            "{}: the link was replaced",
            case.name
        );
        assert_data(case, &std::fs::read(&into).unwrap());
    }
}

#[test]
fn two_outputs_on_standard_output_are_refused() {
    let sb = Sandbox::new();
    let out = sb
        .pb(words(
            "run --records 10 --ops 10 --delay zero --raw - --flash-trace - --results r.db",
        ))
        .expect_code(2);
    assert!(
        out.stderr.contains("standard output already carries --raw"),
        "{}",
        out.stderr
    );
    assert!(!sb.path("r.db").exists());
}

#[test]
fn a_directory_is_refused_before_any_work() {
    let sb = Sandbox::new();
    let dir = sb.path("adir");
    std::fs::create_dir(&dir).unwrap();
    for case in &cases() {
        if case.name == "results show -o" {
            run_case(&sb, case, &dir).expect_ok();
            assert_data(case, &std::fs::read(dir.join("run-1.json")).unwrap());
            assert!(!dir.join(".json").exists());
            std::fs::remove_file(dir.join("run-1.json")).unwrap();
            continue;
        }
        prepare(&sb, case);
        let before = sb.results().exists();
        let out = run_case(&sb, case, &dir).expect_code(2);
        assert!(
            out.stderr.contains("is a directory"),
            "{}: {}",
            case.name,
            out.stderr
        );
        assert_eq!(out.stderr_lines().len(), 1, "{}: {}", case.name, out.stderr);
        assert_eq!(
            sb.results().exists(),
            before,
            "{}: a store was created",
            case.name
        );
        assert!(dir.is_dir() && std::fs::read_dir(&dir).unwrap().next().is_none());
    }
}

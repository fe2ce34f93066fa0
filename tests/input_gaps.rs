//! Input gaps: a range is counted before it is expanded (`flashbench --sizes
//! 1..1000000000:1` is refused at once, under a 1 GiB address-space limit that expanding it
//! would exceed); a TOML spec's schema SQL with a NUL byte is refused when the spec is loaded,
//! naming `FILE: sql.schema[0]`; and a spec's name with control characters (a terminal escape)
//! is printed escaped by `run` and `results list`.

mod common;

use common::{arg, Sandbox, BIN};
use std::os::unix::process::CommandExt;

#[test]
fn ranges_are_counted_before_they_are_expanded() {
    let sb = Sandbox::new();
    for (flag, value, needle) in [
        ("--sizes", "1..1000000000:1", "more than 100000 values"),
        ("--counts", "1..1000000000:1", "more than 100000 values"),
    ] {
        let mut cmd = std::process::Command::new(BIN);
        cmd.args(["flashbench", flag, value, "--results", arg(&sb.results())]);
        // SAFETY: setrlimit in the child before exec.
        unsafe {
            cmd.pre_exec(|| {
                let lim = libc::rlimit {
                    rlim_cur: 1 << 30,
                    rlim_max: 1 << 30,
                };
                libc::setrlimit(libc::RLIMIT_AS, &lim);
                Ok(())
            });
        }
        let out = cmd.output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(
            err.contains(needle) && err.contains(flag),
            "{flag} {value}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}

const SPEC: &str = r#"
name = "NAME"

[sql]
records = 5
operations = 20
schema = ["SCHEMA"]
load = "INSERT INTO t VALUES({key}, {text:10})"

[[sql.statement]]
weight = 1
sql = "SELECT * FROM t WHERE id = {key}"
"#;

fn spec(name: &str, schema: &str) -> String {
    SPEC.replace("NAME", name).replace("SCHEMA", schema)
}

#[test]
fn schema_sql_with_a_nul_byte_is_refused_at_load_naming_the_field() {
    let sb = Sandbox::new();
    let file = sb.write(
        "nul.toml",
        spec(
            "nul",
            "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)\\u0000",
        ),
    );
    for cmd in [
        "trace gen -o t.pbt --workload",
        "run --results r.db --workload",
    ] {
        let mut args = common::words(cmd);
        args.push(arg(&file));
        let out = sb.pb(args).expect_code(2);
        assert!(
            out.stderr
                .contains(&format!("{}: sql.schema[0]", arg(&file)))
                && out.stderr.contains("NUL"),
            "{cmd}: {}",
            out.stderr
        );
        assert!(!sb.path("t.pbt").exists() && !sb.path("r.db").exists());
    }
}

#[test]
fn names_with_control_characters_are_printed_escaped() {
    let sb = Sandbox::new();
    let file = sb.write(
        "esc.toml",
        spec(
            "evil\\u001b[31mred\\u0007",
            "CREATE TABLE t(id INTEGER PRIMARY KEY, v TEXT)",
        ),
    );
    let results = sb.results();
    let run = sb
        .pb([
            "run",
            "--delay",
            "zero",
            "--workload",
            arg(&file),
            "--results",
            arg(&results),
        ])
        .expect_ok();
    let list = sb
        .pb(["results", "list", "--results", arg(&results)])
        .expect_ok();
    for (what, out) in [("run", &run.stdout), ("results list", &list.stdout)] {
        assert!(
            !out.contains('\u{1b}') && !out.contains('\u{7}'),
            "{what}: {out:?}"
        );
        assert!(out.contains("evil\\u{1b}[31mred"), "{what}: {out}");
    }
}

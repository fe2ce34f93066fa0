//! The JVM engines (h2, bdb-je, sqlite-jdbc, nitrite, objectbox) for real, in JVMs started by
//! `pocketbench run` through the driver (drivers/jvm, built by scripts/test.sh with Maven): each
//! replays a YCSB trace with every operation timed in the JVM and stored like a native sample,
//! every point read verified against what was written; after the same trace every engine —
//! native SQLite included — holds the same rows (the driver's end-state checksum); a value
//! corrupted between load and replay fails the reads of it; the context switches reported are
//! the replaying thread's (a known sleeping loop); a checksum of an empty directory is an
//! error; the original PocketData IA recording runs on H2 (its SQL dialect handled) and
//! leaves H2 with exactly SQLite's rows; a warm JVM's warm-up pass leaves nothing behind. Bad
//! situations get one clear line and store nothing: a trace the driver cannot read, no Java,
//! no driver, a JVM killed mid-run, flags a JVM engine cannot honour.

mod common;

use common::jvm::{checksum, jar};
use common::{arg, pb, pb_with, Sandbox};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `pocketbench run` on `engine` replaying `trace`, its database kept in `dir`; the summary.
fn run(sb: &Sandbox, engine: &str, trace: &Path, dir: &Path, extra: &[&str]) -> serde_json::Value {
    let results = sb.results();
    let mut args = vec![
        "run",
        "--engine",
        engine,
        "--trace",
        arg(trace),
        "--dir",
        arg(dir),
        "--results",
        arg(&results),
        "--json",
        "-q",
        "--no-overhead",
    ];
    args.extend_from_slice(extra);
    pb(args).expect_ok().json()
}

fn ycsb_trace(sb: &Sandbox) -> PathBuf {
    jar();
    let trace = sb.path("a.pbt");
    pb([
        "trace",
        "gen",
        "--workload",
        "ycsb-a",
        "--records",
        "120",
        "--ops",
        "400",
        "--delay",
        "zero",
        "-o",
        arg(&trace),
    ])
    .expect_ok();
    trace
}

#[test]
fn every_jvm_engine_replays_a_trace_and_ends_with_native_sqlites_rows() {
    let sb = Sandbox::new();
    let trace = ycsb_trace(&sb);
    let native_dir = sb.path("native");
    run(&sb, "sqlite", &trace, &native_dir, &[]);
    let want = checksum(&sb, "sqlite-jdbc", &native_dir.join("db"), &trace);
    let engines = kv_engines();
    for engine in &engines {
        let engine = engine.as_str();
        let dir = sb.path(engine);
        let s = run(&sb, engine, &trace, &dir, &[]);
        assert_eq!(s["ops"], 400, "{engine}");
        assert_eq!(s["errors"], 0, "{engine}: {}", s["first_error"]);
        // YCSB A: half the 400 operations are reads, every one compared (under 2 000).
        let v = &s["verification"];
        assert!(v["checked"].as_u64().unwrap() > 100, "{engine}: {v}");
        assert_eq!(v["mismatches"], 0, "{engine}: {v}");
        assert_eq!(v["unchecked"], 0, "{engine}: {v}");
        assert_eq!(s["engine"]["name"], engine);
        let opts = &s["engine"]["options"];
        assert_eq!(opts["jvm_mode"], "cold", "{engine}");
        assert!(
            opts["jvm.version"].as_str().unwrap().contains("VM"),
            "{engine}: {opts}"
        );
        assert!(!opts["jvm.gc"].as_str().unwrap().is_empty(), "{engine}");
        // Every operation was timed in the JVM: read and update samples with CPU time.
        let lat = &s["latency_us"];
        assert!(
            lat["read"]["count"].as_u64().unwrap() > 0,
            "{engine}: {lat}"
        );
        assert!(
            lat["update"]["count"].as_u64().unwrap() > 0,
            "{engine}: {lat}"
        );
        assert_eq!(
            checksum(&sb, engine, &dir.join("db"), &trace),
            want,
            "{engine} holds other rows than native SQLite"
        );
    }
    let stored = pb(["results", "list", "--results", arg(&sb.results()), "--json"])
        .expect_ok()
        .json();
    assert_eq!(
        stored.as_array().unwrap().len(),
        engines.len() + 1,
        "{stored}"
    );
}

/// The key-value JVM engines that run here (ObjectBox's native core: x86_64 only).
fn kv_engines() -> Vec<String> {
    ["h2", "bdb-je", "sqlite-jdbc", "nitrite", "objectbox"]
        .into_iter()
        .filter(|e| pocketbench::models::jvm::runs_here(e))
        .map(String::from)
        .collect()
}

/// Run the driver's `command` on a spec; its output.
fn driver(sb: &Sandbox, command: &str, spec: serde_json::Value) -> std::process::Output {
    let spec_path = sb.write(&format!("{command}-spec.json"), spec.to_string());
    Command::new("java")
        .args(["-jar", arg(&jar()), command, arg(&spec_path)])
        .current_dir(spec_path.parent().unwrap())
        .output()
        .expect("running java")
}

fn trace_gen(sb: &Sandbox, name: &str, args: &[&str]) -> PathBuf {
    jar();
    let trace = sb.path(name);
    let mut all = vec!["trace", "gen"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-o", arg(&trace)]);
    pb(all).expect_ok();
    trace
}

#[test]
fn a_value_corrupted_after_the_load_fails_every_read_of_it() {
    let sb = Sandbox::new();
    // YCSB C: 60 reads of 20 records, no writes in the run phase.
    let trace = trace_gen(
        &sb,
        "c.pbt",
        &[
            "--workload",
            "ycsb-c",
            "--records",
            "20",
            "--ops",
            "60",
            "--delay",
            "zero",
        ],
    );
    let db = sb.path("db");
    std::fs::create_dir_all(&db).unwrap();
    let spec = serde_json::json!({
        "trace": trace, "data_dir": db, "engine": "sqlite-jdbc", "options": {},
        "pacing": "think", "spool": sb.path("s.spool"), "report": sb.path("r.json"),
    });
    let out = driver(&sb, "load", spec.clone());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // One field of every record changed behind the engine's back.
    let conn = rusqlite::Connection::open(db.join("pocketbench.sqlite")).unwrap();
    assert_eq!(
        conn.execute("UPDATE usertable SET FIELD3 = 'corrupt'", [])
            .unwrap(),
        20
    );
    drop(conn);
    let out = driver(&sb, "replay", spec);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sb.path("r.json")).unwrap()).unwrap();
    // Every read is checked (fewer than 2 000), and every one differs in field3.
    assert_eq!(r["verification"]["checked"], 60, "{r}");
    assert_eq!(r["verification"]["mismatches"], 60, "{r}");
    assert_eq!(r["errors"], 60, "{r}");
    let first = r["first_error"][1].as_str().unwrap();
    assert!(
        first.contains("read-your-writes") && first.contains("field3"),
        "{first}"
    );
}

#[test]
fn context_switches_are_the_replaying_threads() {
    let sb = Sandbox::new();
    // 40 operations, each after the first due 2 ms after the previous one's end: the replaying
    // thread sleeps 39 times, and leaves the CPU each time (of its own accord, or preempted
    // just before it blocks on a loaded machine). The process's own counters (the launcher
    // thread waiting in `main`) would show about one switch.
    let trace = trace_gen(
        &sb,
        "sleepy.pbt",
        &[
            "--workload",
            "ycsb-c",
            "--records",
            "10",
            "--ops",
            "40",
            "--delay",
            "fixed:2ms",
        ],
    );
    let spec = serde_json::json!({
        "trace": trace, "data_dir": sb.path("null"), "engine": "null", "options": {},
        "pacing": "think", "spool": sb.path("s.spool"), "report": sb.path("r.json"),
    });
    let out = driver(&sb, "replay", spec);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let r: serde_json::Value =
        serde_json::from_slice(&std::fs::read(sb.path("r.json")).unwrap()).unwrap();
    let p = &r["process"];
    let switches = p["voluntary_ctx_switches"].as_u64().unwrap()
        + p["involuntary_ctx_switches"].as_u64().unwrap();
    assert!(switches >= 39, "{p}");
    assert!(p["voluntary_ctx_switches"].as_u64().unwrap() >= 20, "{p}");
    // Its scheduler statistics too: back on a CPU after every sleep.
    if !p["schedstat"].is_null() {
        assert!(p["schedstat"]["timeslices"].as_u64().unwrap() >= 39, "{p}");
    }
}

#[test]
fn a_checksum_of_an_empty_directory_is_an_error() {
    let sb = Sandbox::new();
    let trace = ycsb_trace(&sb);
    let empty = sb.path("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for engine in ["bdb-je", "h2"] {
        let out = driver(
            &sb,
            "checksum",
            serde_json::json!({
                "trace": trace, "data_dir": empty, "engine": engine, "options": {},
                "pacing": "think", "spool": sb.path("s.spool"), "report": sb.path("r.json"),
            }),
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{engine}: {stderr}");
        assert!(stderr.contains("holds no database"), "{stderr}");
        assert!(out.stdout.is_empty(), "{engine} printed a checksum");
        assert_eq!(std::fs::read_dir(&empty).unwrap().count(), 0, "{engine}");
    }
}

#[test]
fn the_pocketdata_recording_runs_on_h2_and_leaves_sqlites_rows() {
    let sb = Sandbox::new();
    jar();
    let trace = sb.path("ia.pbt");
    pb([
        "trace",
        "gen",
        "--workload",
        common::fixture("pocketdata/workload_ia_log.json")
            .to_str()
            .unwrap(),
        "-o",
        arg(&trace),
    ])
    .expect_ok();
    // The recording's own think times would take seconds: replay it back to back.
    let fast = sb.path("ia-fast.pbt");
    pb([
        "trace",
        "gen",
        "--workload",
        common::fixture("pocketdata/workload_ia_log.json")
            .to_str()
            .unwrap(),
        "--delay",
        "zero",
        "-o",
        arg(&fast),
    ])
    .expect_ok();
    let native = sb.path("native");
    run(&sb, "sqlite", &fast, &native, &[]);
    let h2 = sb.path("h2");
    let s = run(&sb, "h2", &fast, &h2, &[]);
    // Inserts, range selects and increments of text columns (SQLite's arithmetic on text).
    assert_eq!(s["errors"], 0, "{}", s["first_error"]);
    assert_eq!(s["ops"], 1800);
    assert_eq!(
        checksum(&sb, "h2", &h2.join("db"), &fast),
        checksum(&sb, "sqlite-jdbc", &native.join("db"), &fast)
    );
}

#[test]
fn a_warm_jvm_warms_up_without_changing_the_data() {
    let sb = Sandbox::new();
    let trace = ycsb_trace(&sb);
    let native = sb.path("native");
    run(&sb, "sqlite", &trace, &native, &[]);
    for engine in ["h2", "bdb-je"] {
        let dir = sb.path(engine);
        let s = run(&sb, engine, &trace, &dir, &["--jvm-mode", "warm"]);
        let opts = &s["engine"]["options"];
        assert_eq!(opts["jvm_mode"], "warm");
        // Passes of the 400-operation run phase until 20 000 operations have run: 50.
        assert_eq!(opts["jvm.warmup_ops"], "20000", "{engine}: {opts}");
        assert_eq!(opts["jvm.warmup_passes"], "50", "{engine}: {opts}");
        assert_eq!(
            checksum(&sb, engine, &dir.join("db"), &trace),
            checksum(&sb, "sqlite-jdbc", &native.join("db"), &trace),
            "{engine}: the warm-up pass left changes behind"
        );
    }
}

#[test]
fn the_driver_refuses_a_corrupt_trace_with_one_line() {
    let sb = Sandbox::new();
    let trace = ycsb_trace(&sb);
    let mut bytes = std::fs::read(&trace).unwrap();
    let last = bytes.len() - 40;
    bytes[last] ^= 0xFF;
    let bad = sb.write("bad.pbt", &bytes);
    let spec = serde_json::json!({
        "trace": bad, "data_dir": sb.path("db"), "engine": "h2", "options": {},
        "pacing": "think", "spool": sb.path("s.spool"), "report": sb.path("r.json"),
    });
    let spec_path = sb.write("spec.json", spec.to_string());
    let out = Command::new("java")
        .args(["-jar", arg(&jar()), "replay", arg(&spec_path)])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.trim_end().lines().count(), 1, "{stderr}");
    assert!(stderr.contains("bad.pbt: corrupt trace"), "{stderr}");
    assert!(!sb.path("r.json").exists(), "a report was written");
}

#[test]
fn bad_situations_are_one_line_and_store_nothing() {
    let sb = Sandbox::new();
    let trace = ycsb_trace(&sb);
    let results = sb.results();
    let base = |engine: &'static str| {
        vec![
            "run".to_string(),
            "--engine".into(),
            engine.into(),
            "--trace".into(),
            arg(&trace).into(),
            "--results".into(),
            arg(&results).into(),
            "-q".into(),
        ]
    };
    // No driver where the variable says.
    let out = pb_with(base("h2"), |c| {
        c.env("POCKETBENCH_JVM_DRIVER", "/no/such/driver.jar");
    })
    .expect_code(2);
    assert!(
        out.stderr
            .contains("POCKETBENCH_JVM_DRIVER=\"/no/such/driver.jar\": no such file"),
        "{}",
        out.stderr
    );
    // No Java anywhere.
    let out = pb_with(base("bdb-je"), |c| {
        c.env_remove("JAVA_HOME").env("PATH", sb.path("empty"));
    })
    .expect_code(2);
    assert!(
        out.stderr.contains("no Java runtime found"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("JAVA_HOME"), "{}", out.stderr);
    // Flags the JVM path cannot honour, and --jvm-mode warm on a native engine.
    for (engine, extra, needle) in [
        ("h2", "--warm", "--warm replays in this process"),
        ("sqlite-jdbc", "--delay=fixed:1ms", "--delay with --trace"),
        (
            "sqlite",
            "--jvm-mode=warm",
            "--jvm-mode warm: only the JVM engines",
        ),
    ] {
        let mut args = base(engine);
        args.push(extra.into());
        let out = pb(args).expect_code(2);
        assert!(out.stderr.contains(needle), "{extra}: {}", out.stderr);
        assert_eq!(out.stderr.trim_end().lines().count(), 1, "{}", out.stderr);
    }
    // A refused run leaves no directory behind, not even the one --dir named.
    let ia = trace_gen(
        &sb,
        "ia.pbt",
        &["--workload", "pocketdata-ia", "--delay", "zero"],
    );
    let refused = sb.path("refused");
    let out = pb([
        "run",
        "--engine",
        "nitrite",
        "--trace",
        arg(&ia),
        "--dir",
        arg(&refused),
        "--results",
        arg(&results),
        "-q",
    ])
    .expect_code(2);
    assert!(
        out.stderr.contains("is a key-value engine"),
        "{}",
        out.stderr
    );
    assert!(
        !refused.exists(),
        "a refused run left {}",
        refused.display()
    );
    assert!(!results.exists(), "a refused run created the store");
    // A JVM killed during the replay: a `java` that loads normally and dies of SIGKILL when
    // asked to replay. The run fails (status 1) and stores nothing.
    let home = sb.path("jdk");
    std::fs::create_dir_all(home.join("bin")).unwrap();
    let fake = home.join("bin/java");
    std::fs::write(
        &fake,
        "#!/bin/sh\ncase \"$3\" in replay) kill -9 $$ ;; esac\nexec java \"$@\"\n",
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let out = pb_with(base("h2"), |c| {
        c.env("JAVA_HOME", &home);
    })
    .expect_code(1);
    assert!(
        out.stderr
            .contains("the JVM crashed or was killed by a signal during replay"),
        "{}",
        out.stderr
    );
    let listed = pb(["results", "list", "--results", arg(&results), "--json"])
        .expect_ok()
        .json();
    assert_eq!(listed.as_array().map_or(0, Vec::len), 0, "{listed}");
}

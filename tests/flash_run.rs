//! The flash model end to end: `run --flash-trace/--flash-model` captures the database's I/O in
//! both processes and models it; `flash replay` reproduces the same counters from the saved
//! trace; `flash validate` and `flash presets` answer; bad input exits 2 and writes nothing.

mod common;

use common::{arg, uint, words, Sandbox};
use serde_json::Value;

const RUN: &str = "--workload ycsb-a --records 100 --ops 200 --delay zero --no-overhead";

fn flash_run(sb: &Sandbox, extra: &[&str]) -> Value {
    let mut args = words(RUN);
    args.extend_from_slice(extra);
    sb.run_json(&args)
}

#[test]
fn run_models_its_trace_and_replay_reproduces_it() {
    let sb = Sandbox::new();
    let trace = sb.path("run.pbft");
    let s = flash_run(
        &sb,
        &[
            "--flash-trace",
            arg(&trace),
            "--flash-model",
            "slc-2k,precondition=fresh",
        ],
    );
    let f = &s["flash"];
    assert!(f["note"].as_str().unwrap().contains("modelled"), "{f:#}");
    let load = uint(f, "/phases/load/counters/host_programs");
    let run = uint(f, "/phases/run/counters/host_programs");
    assert!(load > 0 && run > 0, "{f:#}");
    // Every update wrote through the VFS; the model saw those bytes.
    assert_eq!(
        uint(f, "/phases/run/counters/user_write_bytes"),
        uint(&s, "/io/total/write_bytes")
    );
    // Per-kind attribution: ops match the latency table, programs add up to at most the run's.
    let kinds = f["by_kind"].as_object().unwrap();
    let mut programs = 0;
    for (kind, k) in kinds {
        if let Some(l) = s["latency_us"].get(kind) {
            assert_eq!(k["ops"], l["count"], "{kind}");
        }
        programs += uint(k, "/counters/host_programs");
    }
    assert!(programs > 0 && programs <= run);
    assert!(uint(&kinds["update"], "/counters/host_programs") > 0);
    assert_eq!(uint(&kinds["read"], "/counters/host_programs"), 0);

    let r = sb
        .pb([
            "flash",
            "replay",
            arg(&trace),
            "--flash",
            "precondition=fresh",
            "--json",
        ])
        .expect_ok()
        .json();
    assert_eq!(
        r["phases"], f["phases"],
        "the saved trace models to the same counters"
    );
    let text = sb.pb(["flash", "replay", arg(&trace)]).expect_ok().stdout;
    assert!(text.contains("not measured on a device"), "{text}");
}

#[test]
fn warm_runs_are_modelled_too() {
    let sb = Sandbox::new();
    let s = flash_run(&sb, &["--warm", "--flash-model"]);
    assert!(
        uint(&s, "/flash/phases/run/counters/host_reads") > 0,
        "{:#}",
        s["flash"]
    );
    assert!(s["flash"]["by_kind"]["update"]["ops"].as_u64().unwrap() > 0);
}

#[test]
fn validate_and_presets_answer() {
    let sb = Sandbox::new();
    let v = sb
        .pb([
            "flash",
            "validate",
            "--op",
            "0.28",
            "--gc",
            "fifo",
            "--flash",
            "capacity_mib=16",
            "--json",
        ])
        .expect_ok()
        .json();
    let row = &v[0];
    assert_eq!(row["policy"], "fifo");
    assert!(
        row["relative_error"].as_f64().unwrap().abs() < 0.05,
        "{row:#}"
    );
    let p = sb.pb(["flash", "presets", "--json"]).expect_ok().json();
    assert_eq!(p["presets"].as_array().unwrap().len(), 3);
}

#[test]
fn bad_flash_input_exits_2_and_writes_nothing() {
    let sb = Sandbox::new();
    let out = sb.pb(["flash", "replay", "missing.pbft"]).expect_code(2);
    assert!(
        out.stderr_lines()[0].contains("missing.pbft"),
        "{}",
        out.stderr
    );
    let junk = sb.write("junk.pbft", b"PBFLASH1 not really");
    let out = sb.pb(["flash", "replay", arg(&junk)]).expect_code(2);
    assert!(out.stderr.contains("junk.pbft"), "{}", out.stderr);
    let out = sb
        .pb(words("run --flash-model nand9 --ops 10"))
        .expect_code(2);
    assert_eq!(out.stderr_lines().len(), 1);
    assert!(
        out.stderr
            .contains("--flash-model: unknown flash preset 'nand9'"),
        "{}",
        out.stderr
    );
    let out = sb
        .pb(words("run --ops 10 --flash-trace nodir/t.pbft"))
        .expect_code(2);
    assert!(out.stderr.contains("--flash-trace"), "{}", out.stderr);
    let out = sb
        .pb(words("flash replay x --flash op=lots"))
        .expect_code(2);
    assert!(out.stderr.contains("--flash op=lots"), "{}", out.stderr);
    assert!(
        !sb.path("pocketbench.db").exists(),
        "bad input never creates the store"
    );
}

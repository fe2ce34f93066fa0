//! The real binary against fake sysfs trees: governor set + read-back + restore (also after
//! SIGTERM and SIGINT), observed-only runs, frequency sampling joined to operations, battery
//! energy with an idle baseline, meter-CSV import aligned to the run's markers, background
//! load, `doctor` and `diagnose`.

mod common;

use common::sysfs::{json, pb, run, run_args, setup};
use common::{arg, BIN};
use pocketbench::platform::fake_sysfs::Tree;
use serde_json::Value;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const GOV0: &str = "devices/system/cpu/cpufreq/policy0/scaling_governor";
const GOV4: &str = "devices/system/cpu/cpufreq/policy4/scaling_governor";
const SET0: &str = "devices/system/cpu/cpufreq/policy0/scaling_setspeed";

#[test]
fn governor_is_set_during_the_run_verified_and_restored() {
    let (t, dir, db) = setup(Tree::big_little());
    let seen = dir.path().join("seen");
    // The background command runs during the measured phase: it records what the governor
    // and setspeed files hold then.
    let cmd = format!(
        "cat {} {} > {}; sleep 30",
        t.path(GOV0).display(),
        t.path(SET0).display(),
        seen.display()
    );
    let s = run(
        &t,
        &db,
        &[
            "--governor",
            "fixed:50%",
            "--background-cmd",
            &cmd,
            "--idle-baseline",
            "off",
        ],
    );
    let g = &s["governor"];
    assert_eq!(g["control"], "set");
    assert_eq!(g["requested"], "fixed:50%");
    assert_eq!(g["policies"][0]["target_khz"], 900_000);
    assert_eq!(g["policies"][1]["target_khz"], 1_500_000);
    assert_eq!(g["policies"][1]["cluster"], "big");
    assert_eq!(g["restored_files"], 4);
    assert_eq!(std::fs::read_to_string(&seen).unwrap(), "userspace900000");
    // Restored after the run.
    assert_eq!(t.read(GOV0), "schedutil");
    assert_eq!(t.read(GOV4), "schedutil");
    assert_eq!(t.read(SET0), "<unsupported>");
    assert_eq!(
        s["background"]["command"]["ended"]
            .as_str()
            .unwrap()
            .split(' ')
            .next(),
        Some("stopped")
    );
}

#[test]
fn frequency_is_sampled_and_joined_to_every_operation() {
    let (t, dir, db) = setup(Tree::big_little());
    let raw = dir.path().join("ops.csv");
    let s = run(
        &t,
        &db,
        &["--freq-sample", "2ms", "--raw", raw.to_str().unwrap()],
    );
    let f = &s["frequency"];
    assert_eq!(f["source"], "time_in_state + scaling_cur_freq sampler");
    assert_eq!(f["residency"].as_array().unwrap().len(), 2);
    assert!(f["sampler"]["samples"].as_u64().unwrap() >= 2);
    assert!(
        f["sampler"]["cpu_ns"].as_u64().unwrap() > 0,
        "its own cost is reported"
    );
    assert_eq!(f["sampler"]["period_ns"], 2_000_000);
    // This machine's CPUs are 0 and 1: both in the fake LITTLE cluster at 300 MHz.
    assert_eq!(f["per_op"]["ops_with_frequency"], 30);
    assert_eq!(
        f["per_op"]["latency_us_by_start_khz"]["300000"]["count"],
        30
    );
    let csv = std::fs::read_to_string(&raw).unwrap();
    assert!(csv.lines().next().unwrap().ends_with(",freq_khz"));
    assert!(csv.lines().skip(1).all(|l| l.ends_with(",300000")));
    let conn = rusqlite::Connection::open(&db).unwrap();
    let n: i64 = conn
        .query_row(
            "SELECT count(DISTINCT policy) FROM frequency_samples",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 2, "the timeline is stored per policy");
}

fn wait_for(what: &str, f: impl Fn() -> bool) {
    let t0 = Instant::now();
    while !f() {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn replay_processes(marker: &Path) -> usize {
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|c| String::from_utf8_lossy(c).contains(&*marker.to_string_lossy()))
        .count()
}

/// Wait until the replay process of a run keeping its data in `data` has started.
fn wait_for_replay(data: &Path) {
    wait_for("the replay to start", || {
        data.join("samples.spool").exists()
    });
}

/// Start a long paced run under `governor` (2000 operations 50 ms apart) against `t`, keeping
/// its data in `data` and storing into `db`; stdout is discarded.
fn spawn_long_run(t: &Tree, governor: &str, data: &Path, db: &Path, stderr: Stdio) -> Child {
    Command::new(BIN)
        .arg("--sysfs-root")
        .arg(t.root())
        .args(["run", "--governor", governor, "--delay", "fixed:50ms"])
        .args([
            "--ops",
            "2000",
            "--records",
            "50",
            "--quiet",
            "--no-overhead",
        ])
        .arg("--dir")
        .arg(data)
        .arg("--results")
        .arg(db)
        .stdout(Stdio::null())
        .stderr(stderr)
        .spawn()
        .unwrap()
}

/// The check for `area` in `doctor --json` output.
fn doctor_check(doctor: &Value, area: &str) -> Value {
    doctor["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["area"] == area)
        .unwrap()
        .clone()
}

#[test]
fn a_terminated_run_restores_every_file_and_stops_its_replay() {
    for (sig, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGINT, "SIGINT")] {
        let (t, dir, db) = setup(Tree::big_little());
        let data = dir.path().join("data");
        let child = spawn_long_run(&t, "userspace:max", &data, &db, Stdio::piped());
        wait_for("the governor to be set", || t.read(GOV4) == "userspace");
        wait_for_replay(&data);
        assert_eq!(
            t.read("devices/system/cpu/cpufreq/policy4/scaling_setspeed"),
            "2400000"
        );
        unsafe { libc::kill(child.id() as i32, sig) };
        let out = child.wait_with_output().unwrap();
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            out.status.signal(),
            Some(sig),
            "{name}: dies of the same signal"
        );
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("{name}: restored 4 of 4 cpufreq file(s)")),
            "{err}"
        );
        assert_eq!(t.read(GOV0), "schedutil", "{name}");
        assert_eq!(t.read(GOV4), "schedutil", "{name}");
        assert_eq!(t.read(SET0), "<unsupported>", "{name}");
        wait_for("the replay process to end", || replay_processes(&data) == 0);
        assert!(!pocketbench::platform::cpufreq::restore::journal_path(t.root()).exists());
    }
}

#[test]
fn a_killed_run_is_restored_from_its_journal_by_doctor() {
    let (t, dir, db) = setup(Tree::big_little());
    let data = dir.path().join("data");
    let mut child = spawn_long_run(&t, "powersave", &data, &db, Stdio::null());
    wait_for("the governor to be set", || t.read(GOV4) == "powersave");
    wait_for_replay(&data);
    child.kill().unwrap(); // SIGKILL: nothing can be restored by the process itself
    child.wait().unwrap();
    assert_eq!(t.read(GOV4), "powersave");
    wait_for("the replay process to die with its parent", || {
        replay_processes(&data) == 0
    });
    let control = doctor_check(
        &json(pb(t.root(), &["doctor", "--json"])),
        "governor control",
    );
    assert!(
        control["found"]
            .as_str()
            .unwrap()
            .contains("doctor --restore"),
        "{control}"
    );
    let out = pb(t.root(), &["doctor", "--restore", "--json"]);
    assert!(out
        .stderr
        .contains("restored 2 cpufreq file(s) left changed by an interrupted run"));
    assert_eq!(
        (t.read(GOV0), t.read(GOV4)),
        ("schedutil".to_string(), "schedutil".to_string())
    );
}

#[test]
fn without_cpufreq_a_governor_run_is_observed_and_completes() {
    let (t, _dir, db) = setup(Tree::empty());
    let s = run(&t, &db, &["--governor", "performance"]);
    assert_eq!(s["governor"]["control"], "observed");
    assert!(s["governor"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("no cpufreq on this device"));
    assert!(s["frequency"]["source"].is_null());
    assert!(s["frequency"]["reason"]
        .as_str()
        .unwrap()
        .contains("no cpufreq"));
    assert!(s["energy"]["source"].is_null());
    assert!(s["energy"]["run"].is_null());
    assert!(s["energy"]["reason"]
        .as_str()
        .unwrap()
        .starts_with("no energy source"));
    assert_eq!(s["ops"], 30);
    let text = pb(
        t.root(),
        &[
            "run",
            "--ops",
            "10",
            "--records",
            "20",
            "--delay",
            "zero",
            "--governor",
            "powersave",
            "--no-overhead",
            "--results",
            arg(&db),
        ],
    );
    let stdout = &text.stdout;
    assert!(
        stdout.contains("governor   observed none (no cpufreq), control unavailable: no cpufreq"),
        "{stdout}"
    );
}

#[test]
fn bad_platform_input_is_one_line_and_exit_2_without_touching_the_store() {
    let (t, dir, db) = setup(Tree::big_little());
    for (args, needle) in [
        (vec!["--governor", "fixed:200%"], "--governor fixed:200%"),
        (
            vec!["--governor", "interactive"],
            "--governor interactive: policy0 does not offer it",
        ),
        (vec!["--background", "gpu:1"], "--background gpu:1"),
        (
            vec!["--energy", "solar"],
            "invalid value 'solar' for '--energy",
        ),
    ] {
        let out = pb(t.root(), &run_args(arg(&db), &args));
        assert_eq!(out.code, Some(2), "{args:?}");
        let err = &out.stderr;
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.contains(needle), "{err}");
        assert!(!db.exists(), "{args:?} created the results store");
    }
    let out = pb(&dir.path().join("nope"), &["doctor"]);
    assert!(out.expect_code(2).stderr.contains("--sysfs-root"));
    assert_eq!(t.read(GOV0), "schedutil");
}

#[test]
fn battery_energy_is_integrated_with_an_idle_baseline() {
    let (t, _dir, db) = setup(Tree::empty());
    t.battery("Discharging", -500_000, 4_000_000); // 2 W
    let s = run(&t, &db, &["--idle-baseline", "150ms"]);
    let e = &s["energy"];
    assert!(
        e["source"].as_str().unwrap().starts_with("battery BAT0"),
        "{e}"
    );
    // Constant 2 W: the energy divided by the span of the readings it integrates is 2 W
    // whatever the scheduler did (only µJ truncation remains), and the net is zero.
    let run_mw = e["run"]["mean_power_mw"].as_f64().unwrap();
    assert!((1999.0..=2001.0).contains(&run_mw), "{e}");
    let base_mw = e["baseline"]["mean_power_mw"].as_f64().unwrap();
    assert!((1999.0..=2001.0).contains(&base_mw), "{e}");
    assert!(
        e["net_uj"].as_i64().unwrap().abs() <= 2,
        "constant power: net = 0: {e}"
    );
    assert!(
        s["markers"]["baseline"]["end_unix_ns"].as_u64().unwrap()
            > s["markers"]["run"]["end_unix_ns"].as_u64().unwrap()
    );

    t.battery("Charging", 500_000, 4_000_000);
    let s = run(&t, &db, &["--energy", "battery"]);
    assert!(
        s["energy"]["reason"]
            .as_str()
            .unwrap()
            .contains("is Charging"),
        "{}",
        s["energy"]
    );
    assert!(s["energy"]["run"].is_null());
}

#[test]
fn a_meter_csv_is_aligned_to_the_run_markers() {
    let (t, dir, db) = setup(Tree::empty());
    let s = run(&t, &db, &["--energy", "meter", "--idle-baseline", "100ms"]);
    assert!(s["energy"]["reason"]
        .as_str()
        .unwrap()
        .contains("pocketbench energy import"));
    let m = &s["markers"];
    let ns = |w: &str, k: &str| m[w][k].as_u64().unwrap() as i128;
    let (rs, re) = (ns("run", "start_unix_ns"), ns("run", "end_unix_ns"));
    let (bs, be) = (
        ns("baseline", "start_unix_ns"),
        ns("baseline", "end_unix_ns"),
    );
    // The meter started 1 s before the run: 3 W during the run, 1 W otherwise.
    let t0 = rs - 1_000_000_000;
    let rel = |t: i128| format!("{:.9}", (t - t0) as f64 / 1e9);
    let mut csv = String::from("Time (s),Main Avg Power (mW)\n");
    for (time, mw) in [
        (t0, 1000),
        (rs - 1, 1000),
        (rs, 3000),
        (re, 3000),
        (re + 1, 1000),
        (be + 1_000_000_000, 1000),
    ] {
        csv.push_str(&format!("{},{mw}\n", rel(time)));
    }
    let file = dir.path().join("monsoon.csv");
    std::fs::write(&file, csv).unwrap();
    let id = s["id"].to_string();
    let start = format!("{:.9}", t0 as f64 / 1e9);
    let imp = |extra: &[&str]| {
        let mut a = vec![
            "energy",
            "import",
            &id,
            file.to_str().unwrap(),
            "--results",
            arg(&db),
            "--json",
        ];
        a.extend_from_slice(extra);
        pb(t.root(), &a)
    };
    let bad = imp(&[]);
    assert!(bad
        .expect_code(2)
        .stderr
        .contains("monsoon.csv: timestamps are relative"));
    let e = json(imp(&["--meter-start", &start]));
    let run_s = (re - rs) as f64 / 1e9;
    let run_j = e["run"]["energy_uj"].as_f64().unwrap() / 1e6;
    assert!(
        (run_j - 3.0 * run_s).abs() < 0.01 * run_j + 0.001,
        "{e} over {run_s} s"
    );
    let base_j = e["baseline"]["energy_uj"].as_f64().unwrap() / 1e6;
    assert!((base_j - (be - bs) as f64 / 1e9).abs() < 0.01, "{e}");
    let net_j = e["net_uj"].as_f64().unwrap() / 1e6;
    assert!(
        (net_j - 2.0 * run_s).abs() < 0.02 * net_j + 0.002,
        "net = (3 W − 1 W) × run: {e}"
    );
    assert!(e["source"]
        .as_str()
        .unwrap()
        .starts_with("meter-csv monsoon.csv (Main Avg Power (mW), 6 readings)"));
    // Stored in the run.
    let shown = json(pb(
        t.root(),
        &["results", "show", &id, "--results", arg(&db), "--json"],
    ));
    assert_eq!(shown["energy"], e);
    // A clock that is off by a minute no longer covers the run.
    let off = imp(&["--meter-start", &start, "--offset", "60"]);
    assert!(off.expect_code(2).stderr.contains("the readings cover"));
}

#[test]
fn background_load_runs_beside_the_measured_phase() {
    let (t, _dir, db) = setup(Tree::empty());
    let s = run(&t, &db, &["--background", "cpu:1:30%+io:1:write:1MB/s"]);
    let b = &s["background"];
    assert_eq!(
        b["loads"],
        serde_json::json!(["cpu:1:30%", "io:1:write:1000000B/s"])
    );
    assert_eq!(b["threads"], 2);
    assert!(b["cpu_ns"].as_u64().unwrap() > 0);
    assert!(b["io_ops"].as_u64().unwrap() > 0);
    assert!(b["cpus_busy"].as_f64().unwrap() < 1.0);
}

#[test]
fn doctor_reports_what_a_phone_like_tree_offers() {
    let t = Tree::big_little();
    let r = json(pb(t.root(), &["doctor", "--json"]));
    let check = |area: &str| doctor_check(&r, area);
    assert_eq!(check("cpufreq")["status"], "ok");
    assert!(check("cpufreq")["found"]
        .as_str()
        .unwrap()
        .contains("LITTLE"));
    assert!(check("cpufreq")["meaning"]
        .as_str()
        .unwrap()
        .contains("big.LITTLE"));
    assert_eq!(check("governor control")["status"], "ok");
    assert_eq!(check("frequency stats")["status"], "ok");
    assert_eq!(check("energy")["status"], "missing");
    assert!(r["sleep_overshoot_us"]["count"].as_u64().unwrap() == 200);
    let empty = Tree::empty();
    let out = pb(empty.root(), &["doctor"]);
    let text = out.expect_ok().stdout;
    assert!(text.contains("MISSING  cpufreq"), "{text}");
    assert!(text.contains("MISSING  energy"), "{text}");
}

#[test]
fn diagnose_compares_governors_or_says_why_it_cannot() {
    let (t, _dir, db) = setup(Tree::big_little());
    let common = [
        "--ops",
        "20",
        "--records",
        "30",
        "--delay",
        "fixed:1ms",
        "--results",
        arg(&db),
        "--json",
    ];
    let mut a = vec!["diagnose", "--governors", "schedutil,performance,powersave"];
    a.extend_from_slice(&common);
    let d = json(pb(t.root(), &a));
    assert_eq!(d["candidates"].as_array().unwrap().len(), 3);
    let v = &d["verdict"];
    assert_eq!(v["current"], "schedutil");
    let first = v["findings"][0].as_str().unwrap();
    assert!(first.starts_with("The governor is"), "{first}");
    assert!(v["findings"].as_array().unwrap().iter().any(|f| f
        .as_str()
        .unwrap()
        .starts_with("Energy could not be compared")));
    assert_eq!(t.read(GOV0), "schedutil", "restored after every run");
    // Reading the same runs back from the store.
    let back = json(pb(
        t.root(),
        &[
            "diagnose",
            "--from-results",
            "all",
            "--results",
            arg(&db),
            "--json",
        ],
    ));
    assert_eq!(back["candidates"].as_array().unwrap().len(), 3);
    assert_eq!(back["verdict"]["current"], "schedutil");

    let empty = Tree::empty();
    let mut b = vec!["diagnose"];
    b.extend_from_slice(&common);
    let d = json(pb(empty.root(), &b));
    assert!(d["verdict"].is_null());
    assert!(d["control"]
        .as_str()
        .unwrap()
        .contains("control unavailable: no cpufreq"));
    assert!(d["could_not_determine"][0]
        .as_str()
        .unwrap()
        .contains("no CPU frequency control"));
    assert_eq!(d["candidates"].as_array().unwrap().len(), 2);
}

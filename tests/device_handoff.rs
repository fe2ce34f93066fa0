//! The hand-off between host and device, against the fake adb and ssh of tests/device.rs:
//! `device run -- --version` and `-- --help` pass through to the device; every hint printed
//! after a cable pull (adb and ssh, with a non-default store) works when pasted, and is run
//! here as printed; `results list` and `results show` show the device each run came from; and
//! an ssh target is tagged with its configured name and full address (port included).

mod common;

use common::fake_device::{runs_with_device, Devices, SHORT_RUN};
use common::Outcome;

#[test]
fn version_and_help_pass_through_to_the_device() {
    let d = Devices::new();
    d.x86_phone("P6");
    let out = d.device_run(&["P6"], &["--version"]).expect_ok();
    assert!(out.stderr.contains("pocketbench 0."), "{}", out.stderr);
    let out = d.device_run(&["P6"], &["--help"]).expect_ok();
    assert!(out.stderr.contains("Usage: pocketbench"), "{}", out.stderr);
    let out = d.device_run(&["P6"], &["run", "--help"]).expect_ok();
    assert!(out.stderr.contains("--workload"), "{}", out.stderr);
}

/// The command in the last line's backticks, run as printed (with `--wait`), must merge the job.
fn paste_the_hint(d: &Devices, out: &Outcome) -> Outcome {
    let last = out.stderr.lines().last().unwrap();
    let hint = last
        .split("collect its results with `")
        .nth(1)
        .and_then(|h| h.split('`').next())
        .unwrap_or_else(|| panic!("no hint: {last}"));
    let mut args: Vec<&str> = hint.split_whitespace().collect();
    assert_eq!(args.remove(0), "pocketbench", "{hint}");
    args.extend(["--wait", "--poll", "20ms", "-q"]);
    let pulled = d.pb(&args).expect_ok();
    assert!(
        pulled.stdout.contains("1 run(s) merged"),
        "{hint}: {}",
        pulled.stdout
    );
    pulled
}

#[test]
fn hints_after_a_cable_pull_work_when_pasted_and_runs_show_their_device() {
    let d = Devices::new();
    // adb, the default store.
    d.x86_phone("CUTX");
    d.set("adb/CUTX/fault", "lost-after-start");
    let out = d.device_run(&[], SHORT_RUN).expect_code(1);
    d.unset("adb/CUTX/fault");
    d.unset("adb/CUTX/gone");
    paste_the_hint(&d, &out);
    let list = d.pb(&["results", "list"]).expect_ok();
    assert!(list.stdout.contains("adb:CUTX"), "{}", list.stdout);
    let show = d.pb(&["results", "show", "1"]).expect_ok();
    assert!(
        show.stdout
            .contains("device     adb:CUTX (Pixel 6, Android 14 (SDK 34))"),
        "{}",
        show.stdout
    );

    // ssh, a configured target behind a port, another store.
    d.board("raspberrypi");
    d.set(
        "home/devices.toml",
        "[ssh.pi]\nhost = \"pi@raspberrypi\"\nport = 2222\n",
    );
    let cfg = d.path("home/devices.toml");
    let cfg = cfg.to_str().unwrap();
    d.set("ssh/raspberrypi/fault", "lost-after-start");
    let out = d
        .device_run(&["pi", "--devices", cfg, "--results", "b.db"], SHORT_RUN)
        .expect_code(1);
    d.unset("ssh/raspberrypi/fault");
    paste_the_hint(&d, &out);
    let tag = "ssh:pi (pi@raspberrypi:2222)";
    assert_eq!(runs_with_device(&d.path("host/b.db"))[0].1["target"], tag);
    let list = d.pb(&["results", "list", "--results", "b.db"]).expect_ok();
    assert!(list.stdout.contains(tag), "{}", list.stdout);
    let show = d
        .pb(&["results", "show", "1", "--results", "b.db"])
        .expect_ok();
    assert!(
        show.stdout.contains(&format!("device     {tag}")),
        "{}",
        show.stdout
    );
}

#[test]
fn the_binary_counts_only_when_pushed_and_a_workload_file_keeps_its_name() {
    let d = Devices::new();
    let props = "ro.product.model=Pixel 6\nro.build.version.release=14\nro.build.version.sdk=34\nro.product.cpu.abi=x86_64\n";
    d.phone("ROOM", props, "rw");
    d.set(
        "host/my.properties",
        "recordcount=50\noperationcount=100\nreadproportion=1\nupdateproportion=0\n",
    );
    let cmd = [
        "run",
        "--workload",
        "my.properties",
        "--delay",
        "zero",
        "--no-overhead",
    ];
    d.device_run(&["ROOM", "-q"], &cmd).expect_ok();
    // Now 17 MiB free: room for a job (16 MiB), not for another copy of the binary.
    d.set("adb/ROOM/props", &format!("{props}fake.free_kb=17408\n"));
    d.device_run(&["ROOM", "-q"], &cmd).expect_ok();
    // A phone without the binary still needs room for it.
    d.phone("NEW", &format!("{props}fake.free_kb=17408\n"), "rw");
    let out = d.device_run(&["NEW", "-q"], &cmd).expect_code(2);
    assert!(
        out.stderr.contains("the job needs at least"),
        "{}",
        out.stderr
    );

    // The workload file kept its name on the device: the same workload as a local run.
    d.pb(&[
        "run",
        "--workload",
        "my.properties",
        "--delay",
        "zero",
        "--no-overhead",
    ])
    .expect_ok();
    let names: Vec<String> = (1..=3)
        .map(|id| {
            let v = d
                .pb(&["results", "show", &id.to_string(), "--json"])
                .expect_ok()
                .json();
            v["workload"]["name"].as_str().unwrap().to_string()
        })
        .collect();
    assert_eq!(names[0], names[2], "{names:?}");
    assert_eq!(names[1], names[2], "{names:?}");
}

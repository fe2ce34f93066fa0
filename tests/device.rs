//! `pocketbench device list|run|pull` against fake devices: phones behind a fake `adb` and
//! boards behind a fake `ssh`/`scp` (tests/fixtures/fake-device/), which print what the real
//! tools print and act on a sandbox directory as the device, running the real pocketbench
//! binary there (the host's for x86_64 devices; the aarch64 build under qemu in
//! `an_arm_phone_runs_the_aarch64_binary_under_qemu`). Proves: the probe's facts reach `device
//! list`; a run goes host → push → detached job → streamed output → pull → merged into the
//! local store, tagged with the device; the binary is not pushed twice; local input files go
//! with the job; the device command's exit status comes back; and every bad situation (no adb,
//! no device, several, unauthorized, offline, disconnect mid-push and mid-run, a full or noexec
//! data partition, an ABI without a binary, no root, unreachable or refused ssh) ends with one
//! clear line and a non-zero exit, with nothing measured lost; a job merged twice (a pull
//! interrupted after its merge) stores its runs once.

mod common;

use common::fake_device::{runs_with_device, Devices, SHORT_RUN};
use common::{arg, fixture, stored_runs};

#[test]
fn list_shows_what_each_device_is_and_what_is_wrong_with_the_others() {
    let d = Devices::new();
    d.phone(
        "R58M1234",
        "ro.product.model=SM-G973F\nro.product.manufacturer=samsung\nro.build.version.release=12\nro.build.version.sdk=31\nro.soc.manufacturer=Samsung\nro.soc.model=Exynos 9820\nro.product.cpu.abi=arm64-v8a\nfake.su=yes\nfake.selinux=Permissive\n",
        "rw,lazytime,nosuid,nodev,noatime",
    );
    std::fs::create_dir_all(d.path("adb/emulator-5554")).unwrap();
    d.set("adb/emulator-5554/state", "unauthorized");
    d.board("raspberrypi");
    d.set("home/devices.toml", "[ssh.pi]\nhost = \"pi@raspberrypi\"\n");
    let out = d
        .pb(&[
            "device",
            "list",
            "--devices",
            d.path("home/devices.toml").to_str().unwrap(),
        ])
        .expect_ok();
    assert!(out.stdout.contains("adb:R58M1234  ready"), "{}", out.stdout);
    assert!(out.stdout.contains("samsung SM-G973F"), "{}", out.stdout);
    assert!(out.stdout.contains("Samsung Exynos 9820"), "{}", out.stdout);
    assert!(
        out.stdout.contains("arm64-v8a → aarch64 binary"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("Android 12 (SDK 31)"), "{}", out.stdout);
    assert!(out.stdout.contains("through su"), "{}", out.stdout);
    assert!(out.stdout.contains("Permissive"), "{}", out.stdout);
    assert!(
        out.stdout
            .contains("/data/local/tmp on /data (f2fs rw,lazytime"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout
            .contains("adb:emulator-5554  adb device \"emulator-5554\" is unauthorized"),
        "{}",
        out.stdout
    );
    assert!(
        out.stdout.contains("ssh:pi (pi@raspberrypi)  ready"),
        "{}",
        out.stdout
    );

    let json = d
        .pb(&[
            "device",
            "list",
            "--json",
            "--devices",
            d.path("home/devices.toml").to_str().unwrap(),
        ])
        .expect_ok()
        .json();
    let phone = &json["devices"][0]["device"];
    assert_eq!(phone["arch"], "aarch64");
    assert_eq!(phone["root"], "su");
    assert_eq!(phone["storage"]["file_system"], "f2fs");
    assert_eq!(phone["storage"]["block_device"], "/dev/block/dm-5");
}

#[test]
fn list_without_adb_or_devices_says_so() {
    let d = Devices::new();
    let out = d.pb_path(&["device", "list"], false).expect_ok();
    assert!(
        out.stdout.contains("adb not found on PATH"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("no devices:"), "{}", out.stdout);
    let out = d.pb(&["device", "list"]).expect_ok();
    assert!(
        out.stdout.contains("adb: no devices attached"),
        "{}",
        out.stdout
    );
}

#[test]
fn a_run_goes_to_the_phone_and_comes_back_tagged_with_it() {
    let d = Devices::new();
    d.x86_phone("FAKE01");
    let workload = fixture("pocketdata/workload_a_0ms.json");
    let cmd = [
        "run",
        "--workload",
        arg(&workload),
        "--delay",
        "zero",
        "--no-overhead",
    ];
    let out = d.device_run(&[], &cmd).expect_ok();
    // The command's own output was streamed back.
    assert!(out.stderr.contains("replaying"), "{}", out.stderr);
    assert!(
        out.stdout
            .contains("1 run(s) merged into pocketbench.db as 1"),
        "{}",
        out.stdout
    );
    let runs = runs_with_device(&d.store());
    assert_eq!(runs.len(), 1);
    let dev = &runs[0].1;
    assert_eq!(dev["target"], "adb:FAKE01");
    assert_eq!(dev["model"], "Pixel 6");
    assert_eq!(dev["os"], "Android 14 (SDK 34)");
    assert_eq!(dev["storage"]["mount"], "/data");
    // The workload file went with the job: the run replayed the PocketData file.
    let summary = d.pb(&["results", "show", "1", "--json"]).expect_ok().json();
    assert!(
        summary["workload"]["name"]
            .as_str()
            .unwrap()
            .contains("workload_a_0ms"),
        "{}",
        summary["workload"]
    );
    // The job is gone from the phone once merged; the binary stays for the next run.
    let jobs = d.path("adb/FAKE01/fs/data/local/tmp/pocketbench/jobs");
    assert_eq!(std::fs::read_dir(&jobs).unwrap().count(), 0);
    assert!(d
        .path("adb/FAKE01/fs/data/local/tmp/pocketbench/pocketbench")
        .is_file());

    // A second run finds the same binary there and does not push it again.
    d.device_run(&["-q"], SHORT_RUN).expect_ok();
    let pushes = d
        .adb_log()
        .lines()
        .filter(|l| l.contains("push") && l.contains("pocketbench.part"))
        .count();
    assert_eq!(pushes, 1, "{}", d.adb_log());
    assert_eq!(stored_runs(&d.store()), 2);
}

#[test]
fn the_device_commands_exit_status_comes_back() {
    let d = Devices::new();
    d.x86_phone("FAKE01");
    let out = d
        .device_run(&[], &["run", "--workload", "no-such-workload"])
        .expect_code(2);
    assert!(out.stderr.contains("no-such-workload"), "{}", out.stderr);
    assert!(out.stdout.contains("no results to merge"), "{}", out.stdout);
}

#[test]
fn a_board_over_ssh_runs_the_same_way() {
    let d = Devices::new();
    let home = d.board("raspberrypi");
    let out = d
        .device_run(&["--ssh", "pi@raspberrypi", "-q"], SHORT_RUN)
        .expect_ok();
    assert!(
        out.stdout.contains("ssh:pi@raspberrypi: job"),
        "{}",
        out.stdout
    );
    assert!(home.join("pocketbench/pocketbench").is_file());
    let runs = runs_with_device(&d.store());
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].1["transport"], "ssh");
    // A configured target, with its own directory.
    d.set(
        "home/devices.toml",
        &format!(
            "[ssh.pi]\nhost = \"pi@raspberrypi\"\ndir = \"{}/bench\"\n",
            home.display()
        ),
    );
    let cfg = d.path("home/devices.toml");
    let out = d
        .device_run(&["pi", "--devices", cfg.to_str().unwrap(), "-q"], SHORT_RUN)
        .expect_ok();
    assert!(out.stdout.contains("merged"), "{}", out.stdout);
    assert!(home.join("bench/pocketbench").is_file());
    assert_eq!(stored_runs(&d.store()), 2);
}

#[test]
fn a_lost_connection_mid_run_loses_nothing_and_pull_collects_it() {
    let d = Devices::new();
    d.x86_phone("FAKE01");
    d.set("adb/FAKE01/fault", "lost-after-start");
    let out = d.device_run(&[], SHORT_RUN).expect_code(1);
    let last = out.stderr.lines().last().unwrap();
    assert!(
        last.contains("lost contact during job")
            && last.contains("pocketbench device pull --serial FAKE01"),
        "{}",
        out.stderr
    );
    assert!(!d.store().exists() || stored_runs(&d.store()) == 0);
    // The cable is back: pull waits for the job (it ran on) and merges it, once.
    d.unset("adb/FAKE01/fault");
    d.unset("adb/FAKE01/gone");
    let out = d
        .pb(&["device", "pull", "--wait", "--poll", "20ms", "-q"])
        .expect_ok();
    assert!(out.stdout.contains("1 run(s) merged"), "{}", out.stdout);
    assert_eq!(runs_with_device(&d.store())[0].1["model"], "Pixel 6");
    let out = d.pb(&["device", "pull"]).expect_ok();
    assert!(out.stdout.contains("no jobs"), "{}", out.stdout);
}

#[test]
fn a_disconnect_mid_push_fails_cleanly_and_the_next_run_pushes_again() {
    let d = Devices::new();
    d.x86_phone("FAKE01");
    d.set("adb/FAKE01/fault", "push-disconnect");
    let out = d.device_run(&[], SHORT_RUN).expect_code(1);
    assert_eq!(out.stderr.lines().count(), 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("pushing the pocketbench binary")
            && out.stderr.contains("Connection reset"),
        "{}",
        out.stderr
    );
    // The half-pushed file never took the binary's name.
    assert!(!d
        .path("adb/FAKE01/fs/data/local/tmp/pocketbench/pocketbench")
        .exists());
    d.unset("adb/FAKE01/fault");
    d.unset("adb/FAKE01/gone");
    d.device_run(&["-q"], SHORT_RUN).expect_ok();
    assert_eq!(stored_runs(&d.store()), 1);
}

/// Each case: the device's setup, the `device run` flags, the expected exit status and a
/// phrase of its one-line error. Nothing is stored in any of them.
#[test]
fn every_bad_situation_is_one_clear_line() {
    type Setup = fn(&Devices);
    let cases: &[(&str, Setup, &[&str], i32, &str)] = &[
        ("no device", |_| {}, &[], 2, "no adb device attached"),
        (
            "several devices",
            |d| {
                d.x86_phone("A1");
                d.x86_phone("B2");
            },
            &[],
            2,
            "2 adb devices attached (\"A1\", \"B2\"): choose one with --serial",
        ),
        (
            "unknown serial",
            |d| {
                d.x86_phone("A1");
            },
            &["--serial", "Z9"],
            2,
            "adb device \"Z9\" is not attached (adb devices lists \"A1\")",
        ),
        (
            "unauthorized",
            |d| {
                d.x86_phone("A1");
                d.set("adb/A1/state", "unauthorized");
            },
            &[],
            2,
            "Allow USB debugging",
        ),
        (
            "offline",
            |d| {
                d.x86_phone("A1");
                d.set("adb/A1/state", "offline");
            },
            &[],
            2,
            "is offline: reconnect the cable",
        ),
        (
            "data full",
            |d| {
                d.x86_phone("A1");
                std::fs::write(
                    d.path("adb/A1/props"),
                    "ro.product.cpu.abi=x86_64\nfake.free_kb=100\n",
                )
                .unwrap();
            },
            &[],
            2,
            "has only 100.0 KiB free",
        ),
        (
            "full while pushing",
            |d| {
                d.x86_phone("A1");
                d.set("adb/A1/fault", "full");
            },
            &[],
            2,
            "the device is full",
        ),
        (
            "noexec",
            |d| {
                d.phone(
                    "A1",
                    "ro.product.cpu.abi=x86_64\n",
                    "rw,nosuid,nodev,noexec",
                );
            },
            &[],
            2,
            "mounted noexec",
        ),
        (
            "no aarch64 build",
            |d| {
                d.phone("A1", "ro.product.cpu.abi=arm64-v8a\n", "rw");
            },
            &["--binaries", "no-builds"],
            2,
            "build it with `scripts/build-device.sh aarch64`",
        ),
        (
            "unsupported ABI",
            |d| {
                d.phone("A1", "ro.product.cpu.abi=mips64\n", "rw");
            },
            &[],
            2,
            "the device's ABI is \"mips64\"",
        ),
        (
            "root required, none",
            |d| {
                d.x86_phone("A1");
            },
            &["--root", "require"],
            2,
            "--root require, but the device has no root",
        ),
        (
            "ssh refused",
            |d| {
                d.board("pi4");
                d.set("ssh/pi4/fault", "unreachable");
            },
            &["--ssh", "pi@pi4"],
            1,
            "Connection refused",
        ),
        (
            "ssh key refused",
            |d| {
                d.board("pi4");
                d.set("ssh/pi4/fault", "auth");
            },
            &["--ssh", "pi@pi4"],
            1,
            "Permission denied (publickey)",
        ),
        (
            "bad --ssh",
            |_| {},
            &["--ssh=-oProxyCommand=x"],
            2,
            "--ssh \"-oProxyCommand=x\": a destination cannot start with '-'",
        ),
    ];
    for (name, setup, flags, code, needle) in cases {
        let d = Devices::new();
        setup(&d);
        eprintln!("case: {name}");
        let out = d.device_run(flags, SHORT_RUN).expect_code(*code);
        assert_eq!(out.stderr.lines().count(), 1, "{name}: {}", out.stderr);
        assert!(out.stderr.contains(needle), "{name}: {}", out.stderr);
        assert!(
            !d.store().exists() || stored_runs(&d.store()) == 0,
            "{name}"
        );
    }
    // No adb at all.
    let d = Devices::new();
    let out = d
        .pb_path(&["device", "run", "--", "run"], false)
        .expect_code(2);
    assert!(
        out.stderr.contains("adb not found on PATH"),
        "{}",
        out.stderr
    );
    // A mistake in the device's command is found before any device is contacted.
    for (cmd, needle) in [
        (&["run", "--opps", "3"][..], "unexpected argument '--opps'"),
        (
            &["run", "--results", "x.db"][..],
            "--results belongs to device run itself",
        ),
        (&["device", "list"][..], "cannot run on a device"),
    ] {
        let out = d.device_run(&[], cmd).expect_code(2);
        assert!(out.stderr.contains(needle), "{}", out.stderr);
    }
    assert!(
        !d.path("adb.log").exists(),
        "adb was called: {}",
        d.adb_log()
    );
}

#[test]
fn without_root_governors_are_observed_and_said_so() {
    let d = Devices::new();
    d.x86_phone("A1");
    let out = d.device_run(
        &["-q"],
        &[
            "run",
            "--records",
            "50",
            "--ops",
            "50",
            "--delay",
            "zero",
            "--no-overhead",
            "--governor",
            "powersave",
        ],
    );
    assert!(
        out.stderr
            .contains("no root for this job: governors and CPU sets will be observed, not set"),
        "{}",
        out.stderr
    );
    let summary = d.pb(&["results", "show", "1", "--json"]).expect_ok().json();
    assert_ne!(
        summary["governor"]["mode"], "set",
        "{}",
        summary["governor"]
    );
}

#[test]
fn an_arm_phone_runs_the_aarch64_binary_under_qemu() {
    let binary =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target/device/aarch64/pocketbench");
    let qemu = std::process::Command::new("qemu-aarch64-static")
        .arg("--version")
        .output()
        .is_ok();
    if !binary.is_file() || !qemu {
        assert!(
            std::env::var_os("POCKETBENCH_REQUIRE_QEMU").is_none(),
            "POCKETBENCH_REQUIRE_QEMU is set but the aarch64 build or qemu-aarch64-static is missing"
        );
        eprintln!("skipped: needs scripts/build-device.sh aarch64 and qemu-aarch64-static");
        return;
    }
    let d = Devices::new();
    d.phone(
        "ARM64",
        "ro.product.model=Pixel 8\nro.product.cpu.abi=arm64-v8a\nro.build.version.release=15\n",
        "rw,nosuid,nodev",
    );
    // The device's environment puts qemu in front of its binary, as binfmt_misc would.
    d.set("adb/ARM64/env", "POCKETBENCH_RUNNER=qemu-aarch64-static");
    let devbin = binary.parent().unwrap().parent().unwrap();
    let workload = fixture("pocketdata/workload_a_0ms.json");
    let out = d
        .device_run(
            &["--binaries", devbin.to_str().unwrap(), "-q"],
            &[
                "run",
                "--workload",
                arg(&workload),
                "--delay",
                "zero",
                "--no-overhead",
            ],
        )
        .expect_ok();
    assert!(out.stdout.contains("1 run(s) merged"), "{}", out.stdout);
    let summary = d.pb(&["results", "show", "1", "--json"]).expect_ok().json();
    assert_eq!(summary["phases"]["runner"], "qemu-aarch64-static");
    assert_eq!(summary["device"]["arch"], "aarch64");
    assert_eq!(summary["errors"], 0);
}

#[test]
fn merging_the_same_device_job_twice_stores_its_runs_once() {
    use pocketbench::results::device_jobs::{merge, Merged};
    use pocketbench::results::store::Store;
    let sb = common::Sandbox::new();
    let phone = sb.path("phone.db");
    sb.pb([
        "run",
        "--records",
        "20",
        "--ops",
        "30",
        "--delay",
        "zero",
        "--no-overhead",
    ]
    .into_iter()
    .chain(["-q", "--results", arg(&phone)]))
        .expect_ok();
    let mut lab = Store::open(&sb.path("lab.db")).unwrap();
    let device = serde_json::json!({"model": "Pixel 7", "abi": "arm64-v8a"});
    let first = merge(&mut lab, &phone, "job-1", "adb:FAKE01", &device).unwrap();
    assert_eq!(first, Merged::New(vec![1]));
    // The connection dropped before the job directory was removed: the next pull merges again.
    let second = merge(&mut lab, &phone, "job-1", "adb:FAKE01", &device).unwrap();
    assert_eq!(second, Merged::Before(vec![1]));
    assert_eq!(lab.list().unwrap().len(), 1);
    assert_eq!(lab.summary(1).unwrap().device, Some(device.clone()));
    // Another job with the same store is new runs.
    let other = merge(&mut lab, &phone, "job-2", "adb:FAKE01", &device).unwrap();
    assert_eq!(other, Merged::New(vec![2]));
}

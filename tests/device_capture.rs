//! `device capture` on the fake adb (`tests/fixtures/fake-device/`): the framework's log
//! properties set and put back as they were (also the one the device refuses, left alone and
//! said), the app restarted after the log buffer is cleared, only the app's pids' logcat
//! lines kept, the statements read through the `android-logcat` front end, the schema pulled
//! through `run-as` (or said why not), and the capture importing as a trace with that schema.
//! Without `--duration` it collects until SIGINT, then restores every property and writes the
//! capture all the same.

mod common;

use common::fake_device::Devices;

const PKG: &str = "com.example.notes";

fn phone(d: &Devices, serial: &str, extra_props: &str) -> std::path::PathBuf {
    let dir = d.x86_phone(serial);
    let props = std::fs::read_to_string(dir.join("props")).unwrap();
    std::fs::write(
        dir.join("props"),
        format!("{props}fake.pid.{PKG}=4242\nlog.tag.SQLiteTime=DEBUG\n{extra_props}"),
    )
    .unwrap();
    let app = std::fs::read_to_string("tests/fixtures/import/logcat-threadtime-usec.txt").unwrap();
    let other =
        "05-14 10:11:12.250   999   999 V SQLiteStatements: /data/system/other.db: \"SELECT 1\"\n";
    std::fs::write(
        dir.join(format!("fs/app-{PKG}.logcat")),
        format!("{app}{other}"),
    )
    .unwrap();
    let dbs = dir.join(format!("fs/data/data/{PKG}/databases"));
    std::fs::create_dir_all(&dbs).unwrap();
    rusqlite::Connection::open(dbs.join("notes.db"))
        .unwrap()
        .execute_batch("CREATE TABLE notes(_id INTEGER PRIMARY KEY, title TEXT, body TEXT);")
        .unwrap();
    dir
}

#[test]
fn a_debuggable_app_is_captured_and_every_property_restored() {
    let d = Devices::new();
    let dir = phone(
        &d,
        "emu1",
        &format!("fake.debuggable.{PKG}=yes\nfake.setprop.deny=db.log.\n"),
    );
    let props_before = std::fs::read_to_string(dir.join("props")).unwrap();
    let out = d.pb(&[
        "device",
        "capture",
        "--package",
        PKG,
        "--duration",
        "0s",
        "-o",
        "notes.jsonl",
        "--json",
    ]);
    let out = out.expect_ok();
    let r: serde_json::Value = serde_json::from_str(&out.stdout).unwrap();
    assert_eq!(
        r["set"],
        serde_json::json!([
            "log.tag.SQLiteStatements=VERBOSE",
            "log.tag.SQLiteTime=VERBOSE"
        ])
    );
    let not_set = r["not_set"].as_array().unwrap();
    assert_eq!(not_set.len(), 2, "{not_set:?}");
    assert!(not_set[0]
        .as_str()
        .unwrap()
        .starts_with("db.log.slow_query_threshold (Failed to set"));
    // Every property as it was (the refused ones never changed).
    let mut after: Vec<String> = std::fs::read_to_string(dir.join("props"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut before: Vec<String> = props_before.lines().map(String::from).collect();
    after.sort();
    before.sort();
    assert_eq!(after, before);
    // The order on the device: set, clear the buffer, restart the app, restore.
    let events = std::fs::read_to_string(dir.join("events")).unwrap();
    assert_eq!(
        events.lines().collect::<Vec<_>>(),
        [
            "setprop log.tag.SQLiteStatements VERBOSE",
            "setprop log.tag.SQLiteTime VERBOSE",
            "logcat -c",
            &format!("am force-stop {PKG}"),
            &format!("monkey -p {PKG} -c android.intent.category.LAUNCHER 1"),
            "setprop log.tag.SQLiteTime DEBUG",
            "setprop log.tag.SQLiteStatements ",
        ]
    );
    assert_eq!(r["pids"], serde_json::json!([4242]));
    assert_eq!(
        r["lines"], 15,
        "the other app's line and the pid-less banner left out"
    );
    assert_eq!(r["statements"], 5);
    assert_eq!(r["schema_objects"], 1);
    let jsonl = std::fs::read_to_string(d.path("host/notes.jsonl")).unwrap();
    let first: serde_json::Value = serde_json::from_str(jsonl.lines().next().unwrap()).unwrap();
    assert_eq!(first["schema"]["name"], "notes");
    assert_eq!(
        first["schema"]["db"], "/data/user/0/com.example.notes/databases/notes.db",
        "named as the statements name it"
    );
    assert!(d.path("host/notes.logcat").exists());

    let imported = d.pb(&["trace", "import", "notes.jsonl", "-o", "notes.pbt"]);
    let imported = imported.expect_ok();
    assert!(
        imported.stdout.contains("schema: log"),
        "{}",
        imported.stdout
    );
}

#[test]
fn without_run_as_or_root_the_schema_is_said_missing_and_a_bad_package_refused() {
    let d = Devices::new();
    phone(&d, "phone1", "");
    let out = d.pb(&[
        "device",
        "capture",
        "--package",
        PKG,
        "--duration",
        "0s",
        "-o",
        "n.jsonl",
    ]);
    let out = out.expect_ok();
    assert!(
        out.stdout
            .contains("schema not read: run-as: package not debuggable"),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("set and restored: log.tag.SQLiteStatements=VERBOSE, log.tag.SQLiteTime=VERBOSE, db.log.slow_query_threshold=0, db.log.detailed=true"), "{}", out.stdout);

    let bad = d.pb(&[
        "device",
        "capture",
        "--package",
        "x;reboot",
        "--duration",
        "0s",
        "-o",
        "n.jsonl",
    ]);
    assert_eq!(bad.code, Some(2));
    assert_eq!(bad.stderr.lines().count(), 1, "{}", bad.stderr);
}

#[test]
fn without_a_duration_the_capture_runs_until_ctrl_c_and_still_restores() {
    let d = Devices::new();
    let dir = phone(&d, "emu1", &format!("fake.debuggable.{PKG}=yes\n"));
    let props_before = std::fs::read_to_string(dir.join("props")).unwrap();
    let child = d.spawn(&[
        "device",
        "capture",
        "--package",
        PKG,
        "-o",
        "notes.jsonl",
        "--json",
    ]);
    // The fake monkey writes its line to the events file once the app is started: the capture
    // is then collecting, and waits for Ctrl-C.
    let events = dir.join("events");
    let started = format!("monkey -p {PKG}");
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !std::fs::read_to_string(&events).is_ok_and(|e| e.contains(&started)) {
        assert!(std::time::Instant::now() < give_up, "the app never started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // SAFETY: plain kill(2) of the child this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("then press Ctrl-C"), "{stderr}");
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["interrupted"], "SIGINT");
    assert_eq!(r["statements"], 5);
    let mut after: Vec<String> = std::fs::read_to_string(dir.join("props"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let mut before: Vec<String> = props_before.lines().map(String::from).collect();
    after.sort();
    before.sort();
    assert_eq!(after, before);
    assert!(d.path("host/notes.jsonl").is_file());
}

//! `device capture` on the fake adb (`tests/fixtures/fake-device/`): the framework's log
//! properties set and put back as they were (also the one the device refuses, left alone and
//! said), the log streamed from before the app is restarted to after the capture ends (so a
//! capture longer than the ring buffer keeps its first statements), only the app's pids'
//! lines kept, the statements read through the `android-logcat` front end, and the schema read
//! on the host from the app's database files copied over `exec-out` — on a retail phone with
//! no `sqlite3`, for databases whatever their names, with what is only in a write-ahead log —
//! or said why not; the capture imports as a trace with that schema. Without `--duration` it
//! collects until Ctrl-C, then restores every property and writes the capture all the same.

mod common;

use common::fake_device::{Devices, APP};

fn app_log() -> String {
    std::fs::read_to_string("tests/fixtures/import/logcat-threadtime-usec.txt").unwrap()
}

#[test]
fn a_debuggable_app_is_captured_and_every_property_restored() {
    let d = Devices::new();
    d.app_phone(
        "emu1",
        &app_log(),
        &format!("fake.debuggable.{APP}=yes\nfake.setprop.deny=db.log.\n"),
    );
    let props_before = d.props("emu1");
    let r = d.capture("notes.jsonl");
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
    assert_eq!(d.props("emu1"), props_before);
    // The order on the device: set, clear the buffer, the start marker (seen in the stream
    // before the app starts), restart the app, the end marker, restore.
    assert_eq!(
        d.events("emu1"),
        [
            "setprop log.tag.SQLiteStatements VERBOSE",
            "setprop log.tag.SQLiteTime VERBOSE",
            "logcat -c",
            "log -t pocketbench",
            &format!("am force-stop {APP}"),
            &format!("monkey -p {APP} -c android.intent.category.LAUNCHER 1"),
            "log -t pocketbench",
            "setprop log.tag.SQLiteTime DEBUG",
            "setprop log.tag.SQLiteStatements ",
        ]
    );
    assert!(d.adb_log().contains("-s emu1 logcat -v threadtime -v usec"));
    assert_eq!(r["pids"], serde_json::json!([4242]));
    assert_eq!(
        r["lines"], 15,
        "the other app's line, the markers and the pid-less banner left out"
    );
    assert_eq!(r["statements"], 5);
    assert_eq!(r["schema_objects"], 1);
    assert_eq!(r["schema_via"], "run-as");
    assert_eq!(r["schema_problem"], serde_json::Value::Null);
    assert_eq!(r["log_problem"], serde_json::Value::Null);
    let schema = d.records("notes.jsonl", "schema");
    assert_eq!(schema.len(), 1);
    assert_eq!(schema[0]["name"], "notes");
    assert_eq!(
        schema[0]["db"], "/data/user/0/com.example.notes/databases/notes.db",
        "named as the statements name it"
    );
    let raw = std::fs::read_to_string(d.path("host/notes.logcat")).unwrap();
    assert_eq!(raw.lines().count(), 15);
    assert!(!raw.contains("pocketbench"), "no marker in the app's lines");
    let leftovers: Vec<_> = std::fs::read_dir(d.path("host"))
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.contains("pocketbench-capture") || n.ends_with(".partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    let imported = d.pb(&["trace", "import", "notes.jsonl", "-o", "notes.pbt"]);
    let imported = imported.expect_ok();
    assert!(
        imported.stdout.contains("schema: log"),
        "{}",
        imported.stdout
    );
}

#[test]
fn a_retail_phone_without_sqlite3_gives_the_schema_of_every_database_from_its_copied_files() {
    let d = Devices::new();
    d.app_phone(
        "pixel",
        &app_log(),
        &format!("fake.debuggable.{APP}=yes\nfake.sqlite3=absent\n"),
    );
    let dbs = d.app_databases("pixel");
    // notes.db: an index besides the table, and a blob of every byte value (a newline
    // translated or a byte read as text would break the file), with an empty journal beside it.
    let c = rusqlite::Connection::open(dbs.join("notes.db")).unwrap();
    c.execute_batch("CREATE INDEX notes_title ON notes(title); CREATE TABLE blobs(b BLOB);")
        .unwrap();
    let every: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    c.execute("INSERT INTO blobs VALUES (?1)", [&every])
        .unwrap();
    drop(c);
    std::fs::write(dbs.join("notes.db-journal"), "").unwrap();
    // `mail`: no .db, in WAL mode, its one table still only in the write-ahead log (copied
    // while the writer has it open, as a running app does).
    let stage = tempfile::tempdir().unwrap();
    let mail = rusqlite::Connection::open(stage.path().join("mail")).unwrap();
    mail.execute_batch("PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; CREATE TABLE messages(id INTEGER PRIMARY KEY, subject TEXT);")
        .unwrap();
    for f in ["mail", "mail-wal", "mail-shm"] {
        std::fs::copy(stage.path().join(f), dbs.join(f)).unwrap();
    }
    drop(mail);
    std::fs::create_dir(dbs.join("attachments")).unwrap();
    // Without its write-ahead log, `mail` has no table: it must be copied too.
    let alone = tempfile::tempdir().unwrap();
    std::fs::copy(dbs.join("mail"), alone.path().join("mail")).unwrap();
    let n: i64 = rusqlite::Connection::open(alone.path().join("mail"))
        .unwrap()
        .query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 0);
    // The phone has no sqlite3.
    let probe = std::process::Command::new(common::fake_device::fakes().join("adb"))
        .args(["-s", "pixel", "shell", "sqlite3 /data/x .schema"])
        .env("FAKE_DEVICE_ROOT", d.root.path())
        .output()
        .unwrap();
    assert_eq!(probe.status.code(), Some(127));

    let r = d.capture("mail.jsonl");
    assert_eq!(r["schema_via"], "run-as");
    assert_eq!(r["schema_problem"], serde_json::Value::Null);
    assert_eq!(
        r["databases"],
        serde_json::json!([
            format!("/data/data/{APP}/databases/mail"),
            format!("/data/data/{APP}/databases/notes.db"),
        ]),
        "the directory and SQLite's own files are not databases"
    );
    assert_eq!(r["schema_objects"], 4);
    let schema = d.records("mail.jsonl", "schema");
    let names: Vec<(&str, &str)> = schema
        .iter()
        .map(|s| (s["type"].as_str().unwrap(), s["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        names,
        [
            ("table", "messages"),
            ("table", "notes"),
            ("index", "notes_title"),
            ("table", "blobs")
        ]
    );
    assert_eq!(schema[2]["sql"], "CREATE INDEX notes_title ON notes(title)");
    assert_eq!(
        schema[0]["db"],
        format!("/data/data/{APP}/databases/mail"),
        "a database the statements do not name keeps its path"
    );
    let log = d.adb_log();
    assert!(
        log.contains(&format!(
            "-s pixel exec-out run-as {APP} sh -c 'cat databases/mail' 2>/dev/null"
        )),
        "{log}"
    );
    assert!(log.contains("'cat databases/mail-wal'"), "{log}");
    assert!(!log.contains("databases/mail-shm'"), "{log}");
}

#[test]
fn the_log_is_streamed_so_a_capture_longer_than_the_ring_buffer_keeps_its_first_statements() {
    // 100 statements in 200 lines; the ring buffer holds 50 lines.
    let mut app = String::new();
    for i in 0..100 {
        let db = format!("/data/user/0/{APP}/databases/notes.db");
        app += &format!("05-14 10:11:12.{i:03}000  4242  4260 V SQLiteStatements: {db}: \"INSERT INTO notes(title) VALUES('note {i}')\"\n");
        app += &format!("05-14 10:11:12.{i:03}500  4242  4260 V SQLiteTime: {db}: \"INSERT INTO notes(title) VALUES(?)\" took 0.500 ms\n");
    }
    let d = Devices::new();
    d.app_phone(
        "busy",
        &app,
        &format!("fake.debuggable.{APP}=yes\nfake.logcat.ring=50\n"),
    );
    let r = d.capture("busy.jsonl");
    assert_eq!(r["lines"], 200);
    assert_eq!(r["statements"], 100);
    let statements = d.records("busy.jsonl", "statement");
    assert_eq!(statements.len(), 100);
    for (i, s) in [(0, &statements[0]), (99, &statements[99])] {
        assert_eq!(
            s["expanded"],
            format!("INSERT INTO notes(title) VALUES('note {i}')"),
            "{s}"
        );
    }
    // What a dump of the buffer at the end holds: its last 50 lines, the end marker, the other
    // process's line and the app's last 48 (statement 76 onwards).
    let dump = std::process::Command::new(common::fake_device::fakes().join("adb"))
        .args(["-s", "busy", "shell", "logcat -d"])
        .env("FAKE_DEVICE_ROOT", d.root.path())
        .output()
        .unwrap();
    let dump = String::from_utf8(dump.stdout).unwrap();
    assert_eq!(dump.lines().count(), 50);
    assert!(
        dump.lines()
            .next()
            .unwrap()
            .ends_with("VALUES('note 76')\""),
        "{dump}"
    );
    assert!(!dump.contains("'note 75'"));
}

/// `device capture --package PACKAGE --duration 0s -o OUT` on the only phone.
fn capture_now(d: &Devices, package: &str, out: &str) -> common::Outcome {
    d.pb(&[
        "device",
        "capture",
        "--package",
        package,
        "--duration",
        "0s",
        "-o",
        out,
    ])
}

#[test]
fn without_run_as_or_root_the_schema_is_said_missing_and_a_bad_package_refused() {
    let d = Devices::new();
    d.app_phone("phone1", &app_log(), "");
    let out = capture_now(&d, APP, "n.jsonl").expect_ok();
    assert!(
        out.stdout.contains(&format!(
            "schema not read: run-as: package not debuggable: {APP}; no root (/system/bin/sh: su: inaccessible or not found) (give it with trace import --schema)"
        )),
        "{}",
        out.stdout
    );
    assert!(out.stdout.contains("set and restored: log.tag.SQLiteStatements=VERBOSE, log.tag.SQLiteTime=VERBOSE, db.log.slow_query_threshold=0, db.log.detailed=true"), "{}", out.stdout);
    assert!(
        out.stdout.contains("schema: 0 object(s) of 0 database(s)"),
        "{}",
        out.stdout
    );

    let bad = capture_now(&d, "x;reboot", "n.jsonl");
    assert_eq!(bad.code, Some(2));
    assert_eq!(bad.stderr.lines().count(), 1, "{}", bad.stderr);

    // The log and its raw logcat are a pair of files: standard output cannot take them.
    let to_stdout = capture_now(&d, APP, "-");
    assert_eq!(to_stdout.code, Some(2), "{}", to_stdout.stderr);
    assert!(
        to_stdout.stderr.contains("device capture writes two files"),
        "{}",
        to_stdout.stderr
    );
}

#[test]
fn without_a_duration_the_capture_runs_until_ctrl_c_and_still_restores() {
    let d = Devices::new();
    d.app_phone("emu1", &app_log(), &format!("fake.debuggable.{APP}=yes\n"));
    let props_before = d.props("emu1");
    let child = d.spawn(&[
        "device",
        "capture",
        "--package",
        APP,
        "-o",
        "notes.jsonl",
        "--json",
    ]);
    // The fake monkey writes its line to the events file once the app is started: the capture
    // is then collecting, and waits for Ctrl-C.
    let started = format!("monkey -p {APP}");
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !d.events("emu1").iter().any(|e| e.starts_with(&started)) {
        assert!(std::time::Instant::now() < give_up, "the app never started");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    // Ctrl-C at the terminal: SIGINT to the whole process group, the log stream's adb too.
    // SAFETY: plain kill(2) of the process group this test started.
    assert_eq!(unsafe { libc::kill(-(child.id() as i32), libc::SIGINT) }, 0);
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("then press Ctrl-C"), "{stderr}");
    assert!(
        stderr.contains("pocketbench: SIGINT: ending the capture"),
        "{stderr}"
    );
    let r: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(r["interrupted"], "SIGINT");
    assert_eq!(r["statements"], 5);
    assert_eq!(
        r["log_problem"],
        serde_json::Value::Null,
        "the stream outlived the Ctrl-C"
    );
    assert_eq!(d.props("emu1"), props_before);
    assert!(d.path("host/notes.jsonl").is_file());
}

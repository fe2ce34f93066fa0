//! `device capture` on the fake adb, where the phone makes it hard: a release app (no
//! `run-as`) on a phone with root in each of the forms phones offer it — a root shell
//! (`adb root`), Magisk's `su -c 'CMD'` and AOSP userdebug's `su 0 sh -c 'CMD'`, each fake `su`
//! refusing the other's form — has its databases read through the form that works; and
//! Ctrl-C pressed again and again while the capture is still setting up (a property being
//! set) does not end it before every property it changed is put back.

mod common;

use common::fake_device::{Devices, APP};
use std::io::BufRead;
use std::time::Duration;

fn app_log() -> String {
    std::fs::read_to_string("tests/fixtures/import/logcat-threadtime-usec.txt").unwrap()
}

#[test]
fn a_release_app_is_read_through_whichever_form_of_root_the_phone_has() {
    for (serial, props, form) in [
        ("adbroot", "fake.uid=0\n", "root shell"),
        ("magisk", "fake.su=magisk\n", "su -c"),
        ("aosp", "fake.su=aosp\n", "su 0 sh -c"),
    ] {
        let d = Devices::new();
        d.app_phone(serial, &app_log(), props);
        let r = d.capture("notes.jsonl");
        assert_eq!(r["schema_via"], form, "{serial}");
        assert_eq!(r["schema_problem"], serde_json::Value::Null, "{serial}");
        assert_eq!(
            r["databases"],
            serde_json::json!([format!("/data/data/{APP}/databases/notes.db")]),
            "{serial}"
        );
        let schema = d.records("notes.jsonl", "schema");
        assert_eq!(schema.len(), 1, "{serial}");
        assert_eq!(
            schema[0]["sql"], "CREATE TABLE notes(_id INTEGER PRIMARY KEY, title TEXT, body TEXT)",
            "{serial}"
        );
        let log = d.adb_log();
        let cat = format!("cd /data/data/{APP} && cat databases/notes.db' 2>/dev/null");
        let pulled = match form {
            "root shell" => format!("exec-out sh -c '{cat}"),
            _ => format!("exec-out {form} '{cat}"),
        };
        assert!(log.contains(&pulled), "{serial}: {log}");
        // Tried in order: run-as, a root shell, Magisk's form, AOSP's.
        let tried = |s: &str| log.contains(&format!("shell {s} 'id -u' </dev/null"));
        assert_eq!(
            (tried("sh -c"), tried("su -c"), tried("su 0 sh -c")),
            match form {
                "root shell" => (true, false, false),
                "su -c" => (true, true, false),
                _ => (true, true, true),
            },
            "{serial}: {log}"
        );
    }
}

/// The FIFO the held setprop reads: [`Release::now`] lets it go on, waiting until it opens
/// the FIFO; dropped before that (the test failed first), it lets go a setprop already
/// waiting, so no fake tool is left behind.
struct Release(Option<std::path::PathBuf>);

impl Release {
    fn now(mut self) {
        let fifo = self.0.take().unwrap();
        std::fs::OpenOptions::new().write(true).open(fifo).unwrap();
    }
}

impl Drop for Release {
    fn drop(&mut self) {
        use std::os::unix::fs::OpenOptionsExt;
        if let Some(fifo) = &self.0 {
            // Without a reader waiting, opening fails (ENXIO) instead of waiting for one.
            let _ = std::fs::OpenOptions::new()
                .write(true)
                .custom_flags(libc::O_NONBLOCK)
                .open(fifo);
        }
    }
}

#[test]
fn ctrl_c_again_and_again_during_set_up_still_restores_every_property() {
    let d = Devices::new();
    // The second property's setprop stops once done, until the test writes to `hold`.
    let dir = d.app_phone(
        "emu1",
        &app_log(),
        &format!("fake.debuggable.{APP}=yes\nfake.setprop.hold=log.tag.SQLiteTime\n"),
    );
    let fifo = std::ffi::CString::new(dir.join("hold").to_str().unwrap()).unwrap();
    // SAFETY: a NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let release = Release(Some(dir.join("hold")));
    let props_before = d.props("emu1");
    let mut child = d.spawn(&[
        "device",
        "capture",
        "--package",
        APP,
        "-o",
        "notes.jsonl",
        "--json",
    ]);
    let (tx, rx) = std::sync::mpsc::channel();
    let stderr = child.stderr.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stderr).lines() {
            if tx.send(line.unwrap()).is_err() {
                break;
            }
        }
    });
    let give_up = std::time::Instant::now() + Duration::from_secs(120);
    while !d
        .events("emu1")
        .iter()
        .any(|e| e == "held setprop log.tag.SQLiteTime")
    {
        assert!(
            std::time::Instant::now() < give_up,
            "the set-up never got there"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    // Ctrl-C at the terminal three times, each once the one before was taken: SIGINT to the
    // whole process group, and a SIGTERM.
    let mut said = Vec::new();
    for sig in [libc::SIGINT, libc::SIGINT, libc::SIGTERM] {
        // SAFETY: plain kill(2) of the process group this test started.
        assert_eq!(unsafe { libc::kill(-(child.id() as i32), sig) }, 0);
        let name = if sig == libc::SIGINT {
            "SIGINT"
        } else {
            "SIGTERM"
        };
        loop {
            let line = rx
                .recv_timeout(Duration::from_secs(120))
                .unwrap_or_else(|_| panic!("no word after {name}: {said:?}"));
            said.push(line.clone());
            if line.starts_with(&format!("pocketbench: {name}: ending the capture")) {
                break;
            }
        }
    }
    release.now();
    let status = child.wait().unwrap();
    said.extend(rx.iter());
    assert_eq!(status.code(), Some(1), "{said:?}");
    assert_eq!(
        said.last().unwrap(),
        "pocketbench: error: device capture: interrupted by SIGINT while setting up: nothing captured; put back as they were: log.tag.SQLiteStatements, log.tag.SQLiteTime"
    );
    assert_eq!(d.props("emu1"), props_before);
    assert_eq!(
        d.events("emu1"),
        [
            "setprop log.tag.SQLiteStatements VERBOSE",
            "setprop log.tag.SQLiteTime VERBOSE",
            "held setprop log.tag.SQLiteTime",
            "setprop log.tag.SQLiteTime DEBUG",
            "setprop log.tag.SQLiteStatements ",
        ],
        "nothing more set, the app not restarted, both put back newest first"
    );
    let left: Vec<_> = std::fs::read_dir(d.path("host"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

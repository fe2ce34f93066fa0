//! `device run PHONE -- advise TRACE -o advice.sql` against the fake adb phone of
//! tests/device.rs (the host binary runs as the phone's): the trace, captured here from a real
//! Python program, is pushed with the job; `advise` runs on the phone; its table streams back;
//! the advice (a stored run of kind `advise`) is merged into the local store tagged with the
//! phone; and the advice file, written on the phone, comes home to the path named on the
//! command line. A missing folder for it is refused before anything is pushed. `-o` of `run`
//! (an engine option) is passed through, not taken for a file.

mod common;

use common::fake_device::{runs_with_device, Devices, SHORT_RUN};

/// 2 000 contacts, 40 lookups by an unindexed email.
const LOOKUPS: &str = r#"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("CREATE TABLE contacts(id INTEGER PRIMARY KEY, name TEXT, email TEXT)")
db.execute("""WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000)
              INSERT INTO contacts(name, email) SELECT 'name' || i, 'user' || i || '@example.com' FROM n""")
db.commit()
for i in range(1, 41):
    db.execute("SELECT id, name FROM contacts WHERE email = ?", ("user%d@example.com" % (i * 47),)).fetchall()
db.close()
"#;

#[test]
fn advise_runs_on_the_phone_and_its_advice_comes_home() {
    let d = Devices::new();
    d.x86_phone("FAKE01");
    std::fs::write(d.path("host/app.py"), LOOKUPS).unwrap();
    d.pb(&[
        "capture",
        "-o",
        "app.jsonl",
        "--",
        "/usr/bin/python3",
        "app.py",
        "app.db",
    ])
    .expect_ok();
    d.pb(&["trace", "import", "app.jsonl", "-o", "app.pbt"])
        .expect_ok();

    // A folder that does not exist for the advice file: refused here, nothing pushed.
    let out = d
        .device_run(&[], &["advise", "app.pbt", "-o", "no/such/advice.sql"])
        .expect_code(2);
    assert!(
        out.stderr.contains("-o no/such/advice.sql: directory"),
        "{}",
        out.stderr
    );
    assert!(!d.adb_log().contains("push"), "{}", d.adb_log());

    let out = d
        .device_run(
            &[],
            &[
                "advise",
                "app.pbt",
                "--repeats",
                "2",
                "--no-durability",
                "-o",
                "advice.sql",
            ],
        )
        .expect_ok();
    // The table streamed back from the phone.
    assert!(
        out.stderr
            .contains("advise /data/local/tmp/pocketbench/jobs/"),
        "{}",
        out.stderr
    );
    assert!(out.stderr.contains("CREATE INDEX"), "{}", out.stderr);
    assert!(
        out.stdout.contains("1 run(s) merged into pocketbench.db"),
        "{}",
        out.stdout
    );
    let wrote = d.path("host/advice.sql");
    assert!(
        out.stdout.contains(&format!("wrote {}", wrote.display())),
        "{}",
        out.stdout
    );
    // The advice file came home: written by the phone's advise (the trace's path there; the
    // fake phone's file system is a host folder, so its path ends in the phone's).
    let file = std::fs::read_to_string(&wrote).unwrap();
    let first = file.lines().next().unwrap();
    assert!(
        first.starts_with("-- pocketbench advise ")
            && first.contains("/data/local/tmp/pocketbench/jobs/")
            && first.contains("/inputs/1/app.pbt ("),
        "{file}"
    );
    // The advice is in the local store, tagged with the phone, and names the index candidate.
    let runs = runs_with_device(&d.store());
    assert_eq!(runs.len(), 1);
    assert_eq!(runs[0].1["target"], "adb:FAKE01");
    let conn = common::store(&d.store());
    let (kind, summary): (String, String) = conn
        .query_row("SELECT kind, summary FROM runs", [], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .unwrap();
    assert_eq!(kind, "advise");
    let advice: serde_json::Value = serde_json::from_str(&summary).unwrap();
    let changes: Vec<&str> = advice["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["candidate"]["change"].as_str().unwrap())
        .collect();
    assert!(
        changes.iter().any(|c| c.ends_with("ON contacts(email)")),
        "{changes:?}"
    );
    // Nothing of the job is left on the phone.
    let jobs = d.path("adb/FAKE01/fs/data/local/tmp/pocketbench/jobs");
    assert_eq!(std::fs::read_dir(&jobs).unwrap().count(), 0);
}

#[test]
fn an_engine_option_after_run_dash_o_is_not_taken_for_a_file() {
    let d = Devices::new();
    d.x86_phone("FAKE01");
    let mut cmd = SHORT_RUN.to_vec();
    cmd.extend(["-o", "journal_mode=wal"]);
    let out = d.device_run(&["-q"], &cmd).expect_ok();
    assert!(out.stdout.contains("1 run(s) merged"), "{}", out.stdout);
    assert!(!out.stdout.contains("wrote"), "{}", out.stdout);
    let conn = common::store(&d.store());
    let summary: String = conn
        .query_row("SELECT summary FROM runs", [], |r| r.get(0))
        .unwrap();
    assert!(summary.contains("journal_mode"), "{summary}");
}

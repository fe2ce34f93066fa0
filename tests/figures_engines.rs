//! `pocketbench matrix --plan engines --dry-run`: the engine comparison lists one cell per
//! engine setting of this build × {zero, lognormal} delay, each a real `run` argument list on
//! ycsb-a, without running anything or creating a store.

mod common;

use common::Sandbox;

#[test]
fn the_engines_plan_lists_engine_settings_by_delay() {
    let sb = Sandbox::new();
    let v = sb
        .pb(["matrix", "--plan", "engines", "--dry-run", "--json"])
        .expect_ok()
        .json();
    assert_eq!(v["plan"], "engines");
    assert_eq!(v["repeats"], 3);
    let cells = v["cells"].as_array().unwrap();
    let names: Vec<&str> = cells.iter().map(|c| c["name"].as_str().unwrap()).collect();
    let built = sb.pb(["engines", "--json"]).expect_ok().json();
    let built: Vec<&str> = built
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    let mut expected: Vec<String> = [
        "sqlite:delete/full",
        "sqlite:wal/full",
        "sqlite:wal/normal",
        "sqlite:wal/off",
        "lmdb:sync",
        "lmdb:nosync",
        "redb:immediate",
        "redb:none",
    ]
    .map(String::from)
    .to_vec();
    for e in ["berkeleydb", "rocksdb", "leveldb"] {
        if built.contains(&e) {
            expected.extend([format!("{e}:sync"), format!("{e}:nosync")]);
        } else {
            let notice = v["notices"][0].as_str().unwrap();
            assert!(notice.contains(e), "{notice}");
            assert!(!names.iter().any(|n| n.contains(e)), "{names:?}");
        }
    }
    assert_eq!(cells.len(), expected.len() * 2, "{names:?}");
    for (i, setting) in expected.iter().enumerate() {
        assert_eq!(names[2 * i], format!("engine={setting} delay=zero"));
        assert_eq!(
            names[2 * i + 1],
            format!("engine={setting} delay=lognormal:6.67ms")
        );
    }
    assert_eq!(v["runs"], cells.len() as u64 * 3);
    let args = |i: usize| -> String {
        cells[i]["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let wal_normal = args(4);
    assert!(wal_normal.contains("--workload ycsb-a"), "{wal_normal}");
    assert!(
        wal_normal.contains("--engine sqlite -o journal_mode=wal -o synchronous=normal"),
        "{wal_normal}"
    );
    assert!(args(11).contains("--engine lmdb -o sync=nosync --delay lognormal:6.67ms"));
    assert!(
        !sb.path("pocketbench.db").exists(),
        "a dry run stores nothing"
    );

    let text = sb
        .pb(["matrix", "--plan", "engines", "--dry-run"])
        .expect_ok()
        .stdout;
    assert!(
        text.contains(&format!(
            "{} cells × 3 repeats = {} runs",
            cells.len(),
            cells.len() * 3
        )),
        "{text}"
    );
}

//! The data-model study (`pocketbench models`): the generator's first values and rows for a
//! seed, worked out independently (by hand for the first xorshift step, the rest by a separate
//! model of the generator); every engine of the build, each through its own plans, gives the
//! answer computed straight from the rows, for every test and execution, at two small scales
//! (with and without app-maintained indexes), the JVM engines (H2, Nitrite, ObjectBox) through
//! the driver; a test that runs past its budget is recorded as
//! such, not a crash; answers that differ between engines are found; through the binary a run
//! is stored, printed again with `--show`, exported as CSV, and bad flags exit 2 with one line
//! and store nothing.

mod common;

use common::{arg, pb, pb_with};
use pocketbench::models::data::{DataSet, XorShift};
use pocketbench::models::query::{self, Answer, Query, Test, Value};
use pocketbench::models::{self, crosscheck, run_test, ModelStore};
use pocketbench::platform::fake_sysfs::Tree;

#[test]
fn the_generator_gives_the_same_rows_for_a_seed() {
    // xorshift64 (13, 7, 17) from 1: 1 ^ 1<<13 = 8193; ^ 8193>>7 (64) = 8257;
    // ^ 8257<<17 (1 082 261 504, no bit shared) = 1 082 269 761.
    let mut x = XorShift::new(1);
    assert_eq!(x.next_u64(), 1_082_269_761);
    assert_eq!(x.next_u64(), 1_152_992_998_833_853_505);
    assert_eq!(x.next_u64(), 11_177_516_664_432_764_457);
    // Name: 1 082 269 761 mod 64 = 1 → "Alan"; the rest from the same stream.
    let d = DataSet::generate(1, 3, 2);
    let people: Vec<(u32, &str, u32, &str, &str)> = d
        .people
        .iter()
        .map(|p| {
            (
                p.id,
                p.name.as_str(),
                p.age,
                p.gender.as_str(),
                p.color.as_str(),
            )
        })
        .collect();
    assert_eq!(
        people,
        [
            (1, "Alan", 59, "M", "cyan"),
            (2, "Nia", 73, "M", "pink"),
            (3, "Bela", 62, "F", "indigo")
        ]
    );
    let sales: Vec<(u32, u32, u32, u32, &str, u32)> = d
        .transactions
        .iter()
        .map(|t| (t.id, t.seller, t.buyer, t.price, t.item.as_str(), t.date))
        .collect();
    assert_eq!(
        sales,
        [
            (1, 1, 2, 72065, "camera", 257),
            (2, 1, 3, 78187, "helmet", 982),
            (3, 2, 1, 92452, "book", 453),
            (4, 2, 1, 28758, "cup", 313),
            (5, 3, 1, 43217, "laptop", 122),
            (6, 3, 1, 73712, "mouse", 583)
        ]
    );
    assert_eq!(DataSet::generate(1, 3, 2).people, d.people);
    assert_ne!(DataSet::generate(2, 3, 2).people, d.people);
}

#[test]
fn the_reference_answers_by_hand() {
    let d = DataSet::generate(1, 3, 2);
    // Ages 59, 73, 62: two people in 55..=64.
    let a = query::reference(&d, &Query::AgeRange(55, 64));
    assert_eq!(
        a.rows,
        vec![
            vec![Value::Int(1), Value::Text("Alan".into()), Value::Int(59)],
            vec![Value::Int(3), Value::Text("Bela".into()), Value::Int(62)],
        ]
    );
    // Buyer 1 bought transactions 3..6: 92 452 + 28 758 + 43 217 + 73 712 = 238 139.
    let g = query::reference(&d, &Query::GroupBuyer);
    assert_eq!(g.rows[0], vec![Value::Int(1), Value::Int(238_139)]);
    assert_eq!(g.rows.len(), 3);
    // Buyers aged 70..=74: Nia (2), who bought transaction 1 for 72 065.
    let j = query::reference(&d, &Query::JoinAge(70, 74));
    assert_eq!(
        j.rows,
        vec![vec![
            Value::Int(1),
            Value::Int(72065),
            Value::Int(2),
            Value::Text("Nia".into())
        ]]
    );
    // Order does not matter to an answer.
    let b = Answer::new(j.rows.iter().rev().cloned().collect());
    assert_eq!(b.checksum(), j.checksum());
}

#[test]
fn every_engine_gives_the_reference_answer_to_every_execution() {
    let engines = models::engines();
    if cfg!(feature = "berkeleydb") {
        assert!(engines.iter().any(|e| e == "berkeleydb-sql"), "{engines:?}");
    }
    if cfg!(feature = "model-stores") {
        assert!(engines.iter().any(|e| e == "polodb"), "{engines:?}");
    }
    for tuples in [1, 40] {
        let data = DataSet::generate(7, tuples, 3);
        // H2, Nitrite and ObjectBox run in the JVM driver: checked through a whole run below.
        for engine in engines
            .iter()
            .filter(|e| !models::jvm::ENGINES.contains(&e.as_str()))
        {
            let dir = tempfile::tempdir().unwrap();
            let mut store = models::create(engine, dir.path()).unwrap();
            store.insert(&data).unwrap();
            for test in Test::ALL {
                for q in query::executions(test, 7, tuples) {
                    let got = store.query(&q).unwrap();
                    let want = query::reference(&data, &q);
                    assert_eq!(got, want, "{engine}, {tuples} tuples, {q:?}");
                }
            }
        }
    }
}

/// A store that answers nothing, instantly.
struct Empty;

impl ModelStore for Empty {
    fn insert(&mut self, _: &DataSet) -> pocketbench::error::Result<()> {
        Ok(())
    }
    fn query(&mut self, _: &Query) -> pocketbench::error::Result<Answer> {
        Ok(Answer::new(Vec::new()))
    }
}

#[test]
fn a_test_past_its_budget_is_recorded_not_a_crash() {
    let queries = query::executions(Test::GroupAge, 1, 10);
    assert_eq!(queries.len(), 10);
    // A budget of 1 ns: the first execution runs, then the budget is spent.
    let r = run_test(&mut Empty, Test::GroupAge, &queries, 1, None).unwrap();
    assert_eq!(r.executions.len(), 1);
    let why = r.exceeded_budget.unwrap();
    assert!(
        why.starts_with("exceeded budget: 1 of 10 executions in"),
        "{why}"
    );
    let r = run_test(&mut Empty, Test::GroupAge, &queries, u64::MAX, None).unwrap();
    assert_eq!((r.executions.len(), r.exceeded_budget), (10, None));
}

#[test]
fn differing_answers_are_found() {
    let data = DataSet::generate(3, 20, 3);
    let req = models::Request {
        engines: vec!["sqlite".into(), "lmdb".into()],
        scales: vec![20],
        tests: vec![Test::LookupName, Test::GroupBuyer],
        per_person: 3,
        seed: 3,
        budget_ns: u64::MAX,
        parent: std::env::temp_dir(),
        think: Default::default(),
        governor: None,
    };
    let mut run = models::measure(&req).unwrap();
    assert!(run.mismatches.is_empty(), "{:?}", run.mismatches);
    assert_eq!(run.results.len(), 2);
    assert_eq!(run.results[0].rows, data.rows());
    // Tamper with lmdb's answer to test 5's third execution.
    run.results[1].tests[1].executions[2].checksum = "0".repeat(16);
    let m = crosscheck(&run.results);
    assert_eq!(m.len(), 1);
    assert_eq!((m[0].test, m[0].execution), (Test::GroupBuyer, 3));
    assert_eq!(m[0].engines, ("sqlite".to_string(), "lmdb".to_string()));
}

#[test]
fn the_command_stores_prints_and_exports_a_run() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("m.db");
    let csv = dir.path().join("m.csv");
    let out = pb([
        "models",
        "--tuples",
        "5,30",
        "--engines",
        "sqlite,lmdb+index",
        "--results",
        arg(&store),
        "--csv",
        arg(&csv),
        "-q",
    ])
    .expect_ok();
    let text = &out.stdout;
    assert!(
        text.contains("30 tuples (30 people, 90 transactions)"),
        "{text}"
    );
    assert!(
        text.contains("every engine gave the same answer to every execution (240 executions"),
        "{text}"
    );
    let shown = pb(["models", "--show", "--results", arg(&store), "--json"])
        .expect_ok()
        .json();
    assert_eq!(shown["id"], 1);
    assert_eq!(shown["results"].as_array().unwrap().len(), 4);
    assert_eq!(shown["results"][1]["engine"], "lmdb+index");
    assert_eq!(
        shown["results"][1]["tests"][0]["executions"]
            .as_array()
            .unwrap()
            .len(),
        10
    );
    // No document or object store in this run: the study's findings are not checked.
    let study = pb(["models", "--study", "--results", arg(&store)]).expect_ok();
    assert!(
        study
            .stdout
            .contains("the study's findings: not checked (the run needs a relational, a document and an object engine of one runtime)"),
        "{}",
        study.stdout
    );
    // The list says each engine's role and which ones apps ship.
    let list = pb(["models", "--list"]).expect_ok().stdout;
    let sqlite = list.lines().find(|l| l.starts_with("sqlite ")).unwrap();
    assert!(
        sqlite.contains("relational") && sqlite.contains("yes"),
        "{list}"
    );
    assert!(
        list.contains("lmdb+index") && list.contains("app-kept indexes"),
        "{list}"
    );
    let rows = std::fs::read_to_string(&csv).unwrap();
    // Header, then 2 engines × 2 scales × 6 tests.
    assert_eq!(rows.lines().count(), 1 + 24, "{rows}");
    assert!(
        rows.starts_with("engine,kind,tuples,rows,create_ns"),
        "{rows}"
    );
}

#[test]
fn bad_flags_exit_2_with_one_line_and_store_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("never.db");
    let cases: [(&[&str], &str); 7] = [
        (&["--tuples", "0"], "--tuples 0: must be 1 to 100000"),
        (
            &["--tuples", "100001"],
            "--tuples 100001: must be 1 to 100000",
        ),
        (
            &["--engines", "oracle"],
            "--engines \"oracle\": not a study engine of this build",
        ),
        (
            &["--tests", "7"],
            "--tests \"7\": not a test (1 to 6, or lookup-id",
        ),
        (&["--budget", "0s"], "--budget 0: give a positive time"),
        (&["--per-person", "0"], "--per-person 0: must be 1 to 100"),
        (&["--csv", "/"], "--csv /:"),
    ];
    for (flags, expected) in cases {
        let mut args = vec!["models", "--results", arg(&store)];
        args.extend_from_slice(flags);
        let out = pb(args).expect_code(2);
        assert!(out.stderr.contains(expected), "{flags:?}: {}", out.stderr);
        assert_eq!(out.stderr.trim_end().lines().count(), 1, "{}", out.stderr);
        assert!(!store.exists(), "{flags:?} created the store");
    }
}

#[test]
fn a_models_plan_stores_one_run_per_cell() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("study.db");
    let plan = dir.path().join("plan.toml");
    std::fs::write(
        &plan,
        "suite = \"models\"\nrepeats = 1\n[models]\ntuples = \"8\"\nengines = \"sqlite,redb+index\"\n[axes]\nper_person = [1, 2]\n",
    )
    .unwrap();
    let out = pb(["matrix", arg(&plan), "--results", arg(&store), "-q"]).expect_ok();
    assert!(out.stdout.contains("== per_person=1"), "{}", out.stdout);
    assert!(out.stdout.contains("== per_person=2"), "{}", out.stdout);
    assert!(out.stdout.contains("2 of 2 in all"), "{}", out.stdout);
    let v = pb([
        "matrix",
        arg(&plan),
        "--results",
        arg(&store),
        "--resume",
        "--json",
    ])
    .expect_ok()
    .json();
    let runs = v["runs"].as_array().unwrap();
    assert_eq!(runs.len(), 2);
    // 8 people and 8 or 16 transactions.
    assert_eq!(runs[0]["run"]["results"][0]["rows"], 16);
    assert_eq!(runs[1]["run"]["results"][0]["rows"], 24);
    let bad = dir.path().join("bad.toml");
    std::fs::write(&bad, "suite = \"models\"\n[axes]\ncsv = [\"x.csv\"]\n").unwrap();
    let out = pb(["matrix", arg(&bad), "--results", arg(&store)]).expect_code(2);
    assert!(
        out.stderr.contains("--csv cannot be set in a plan"),
        "{}",
        out.stderr
    );
}

#[test]
fn the_governor_is_set_and_restored_and_think_time_is_recorded() {
    // A fake big.LITTLE device running schedutil: the study sets powersave on both policies,
    // finds it still set at the end, and puts schedutil back.
    let t = Tree::big_little();
    let gov = "devices/system/cpu/cpufreq/policy0/scaling_governor";
    let before = t.read(gov);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("m.db");
    let root = t.root().to_path_buf();
    let out = pb_with(
        [
            "models",
            "--tuples",
            "6",
            "--engines",
            "sqlite",
            "--tests",
            "1",
            "--think",
            "fixed:1ms",
            "--governor",
            "powersave",
            "--results",
            arg(&store),
            "--json",
            "-q",
        ],
        |c| {
            c.env("POCKETBENCH_SYSFS_ROOT", &root);
        },
    )
    .expect_ok()
    .json();
    assert_eq!(out["think"], "fixed:1ms");
    assert_eq!(out["governor"]["control"], "set", "{}", out["governor"]);
    assert_eq!(out["governor"]["requested"], "powersave");
    assert_eq!(t.read(gov), before, "the governor was not restored");
    // A governor no kernel ships is refused before anything runs.
    let bad = pb_with(
        ["models", "--governor", "turbo", "--results", arg(&store)],
        |c| {
            c.env("POCKETBENCH_SYSFS_ROOT", &root);
        },
    )
    .expect_code(2);
    assert!(bad.stderr.contains("turbo"), "{}", bad.stderr);
    let bad = pb(["models", "--think", "sometimes", "--results", arg(&store)]).expect_code(2);
    assert!(bad.stderr.contains("--think"), "{}", bad.stderr);
}

#[test]
fn the_jvm_engines_give_the_reference_answer_to_every_execution() {
    assert!(
        models::jvm::available(),
        "H2, sqlite-jdbc, Nitrite and ObjectBox need a Java runtime and the JVM driver (`mvn -f drivers/jvm/pom.xml package`; scripts/test.sh builds it)"
    );
    let engines: Vec<String> = models::jvm::ENGINES
        .iter()
        .filter(|e| models::jvm::runs_here(e))
        .map(|e| e.to_string())
        .collect();
    for e in &engines {
        assert!(models::engines().contains(e), "{e}");
    }
    for tuples in [1, 40] {
        let data = DataSet::generate(7, tuples, 3);
        let req = models::Request {
            engines: engines.clone(),
            scales: vec![tuples],
            tests: Test::ALL.to_vec(),
            per_person: 3,
            seed: 7,
            budget_ns: u64::MAX,
            parent: std::env::temp_dir(),
            think: Default::default(),
            governor: None,
        };
        let run = models::measure(&req).unwrap();
        assert_eq!(run.results.len(), engines.len());
        for r in &run.results {
            let kind = match r.engine.as_str() {
                "h2" | "sqlite-jdbc" => models::Kind::Relational,
                "nitrite" => models::Kind::Document,
                _ => models::Kind::Object,
            };
            assert_eq!(r.kind, kind, "{}", r.engine);
            assert_eq!(r.tests.len(), Test::ALL.len(), "{}", r.engine);
            // The phases' thread counters come back from the driver.
            let create = r.create_counters.expect("create counters");
            assert!(create.cpu_ns > 0, "{}", r.engine);
            assert!(r.insert_counters.expect("insert counters").cpu_ns > 0);
            for t in &r.tests {
                let want = query::executions(t.test, 7, tuples);
                assert_eq!(t.executions.len(), want.len(), "{} {:?}", r.engine, t.test);
                for (e, q) in t.executions.iter().zip(&want) {
                    let reference = query::reference(&data, q);
                    assert_eq!(
                        e.checksum,
                        reference.checksum(),
                        "{}, {tuples} tuples, {q:?}",
                        r.engine
                    );
                    assert_eq!(e.rows, reference.rows.len() as u64);
                }
            }
        }
    }
}

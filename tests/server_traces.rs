//! Shared app traces, on each back end. An app's statement log imported with anonymisation is
//! published (`submit --trace`): the same trace twice is one entry. A study plan naming it is
//! taken by two agents, each fetching the trace (streamed, its SHA-256 checked) into its own
//! cache and replaying it on another engine; the gallery's JSON and page count two runs on one
//! device model, and the trace's JSON and page rank that model under each engine setup, with
//! the hand-worked means of the stored results. A trace imported without anonymisation is
//! refused unless its publisher says so; a corrupted or truncated upload is refused with 400
//! naming the problem and nothing is stored (no row, no chunk); a stored trace downloads byte
//! for byte; a title with markup is escaped on both pages (rendered by Chromium). A hostile
//! trace (its schema attaches, writes and vacuums into files elsewhere and moves the temporary
//! directory) is published without the server creating any of them, and its fetched replay is
//! refused in its load phase, naming the statement, with nothing created either. Two servers
//! on one PostgreSQL given the same trace at once, four times each, store it once and serve it
//! from both.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, post, Backend, Server};
use common::{arg, hostile_trace, listing, pb_with, Outcome, Sandbox};
use serde_json::{json, Value};

/// An app's statement log: a table, ten inserts of a secret and ten lookups, on one
/// connection, 1 ms apart.
fn app_log() -> String {
    let mut sql = vec!["CREATE TABLE notes(id INTEGER PRIMARY KEY, body TEXT)".to_string()];
    for i in 0..10 {
        sql.push(format!(
            "INSERT INTO notes(body) VALUES ('secret note {i}')"
        ));
    }
    for i in 0..10 {
        sql.push(format!("SELECT body FROM notes WHERE id = {}", i + 1));
    }
    sql.iter()
        .enumerate()
        .map(|(i, s)| {
            format!(
                "{{\"statement\":{{\"t_ns\":{},\"dur_ns\":1000,\"conn\":\"0x1\",\"sql\":{}}}}}\n",
                1_000_000 * (i + 1),
                serde_json::to_string(s).unwrap()
            )
        })
        .collect()
}

/// `app.pbt` (anonymised: literals) and `raw.pbt` (not anonymised) imported from [`app_log`].
fn traces(sb: &Sandbox) {
    sb.write("app.jsonl", app_log());
    sb.pb(["trace", "import", "app.jsonl", "-o", "raw.pbt"])
        .expect_ok();
    sb.pb([
        "trace",
        "import",
        "app.jsonl",
        "-o",
        "app.pbt",
        "--anonymize",
        "literals",
        "--salt",
        "pepper",
    ])
    .expect_ok();
}

/// `pocketbench ARGS` in `sb` with its own trace cache `cache` and token `token`.
fn pb_cached(sb: &Sandbox, cache: &str, token: &str, args: &[&str]) -> Outcome {
    let cache = sb.path(cache);
    let dir = sb.path("");
    pb_with(args, move |c| {
        c.current_dir(dir)
            .env("XDG_CACHE_HOME", cache)
            .env("POCKETBENCH_TOKEN", token);
    })
}

/// Rows of `table` in the server's database, on either back end.
fn rows(b: &Backend, table: &str) -> i64 {
    let sql = format!("SELECT COUNT(*) FROM {table}");
    if b.name == "postgres" {
        let mut c = postgres::Client::connect(&b.url, postgres::NoTls).unwrap();
        c.query_one(&sql, &[]).unwrap().get::<_, i64>(0)
    } else {
        let c = rusqlite::Connection::open(&b.url).unwrap();
        c.query_row(&sql, [], |r| r.get(0)).unwrap()
    }
}

/// Publish `file` with `title`, as JSON.
fn publish(sb: &Sandbox, s: &Server, token: &str, file: &str, title: &str) -> Value {
    pb_cached(
        sb,
        "cache",
        token,
        &[
            "submit", "--server", &s.url, "--trace", file, "--title", title, "--json",
        ],
    )
    .expect_ok()
    .json()
}

/// Run an agent of class `lab` named `name`, with its own cache and store, for at most `max`
/// cells (0: until idle); its standard output.
fn agent(sb: &Sandbox, s: &Server, token: &str, name: &str, max: &str) -> String {
    let store = sb.path(&format!("{name}.db"));
    let out = pb_cached(
        sb,
        &format!("cache-{name}"),
        token,
        &[
            "agent",
            "--server",
            &s.url,
            "--class",
            "lab",
            "--name",
            name,
            "--exit-when-idle",
            "--max-cells",
            max,
            "--results",
            arg(&store),
        ],
    );
    assert_eq!(out.code, Some(0), "{}{}", out.stdout, out.stderr);
    out.stdout
}

#[test]
fn a_published_trace_is_replayed_by_two_agents_and_ranked_per_engine() {
    let sb = Sandbox::new();
    traces(&sb);
    for b in backends() {
        let s = Server::start(&b, &["--min-results", "1", "--rate-limit", "0"]);
        let t = s.token("lab");
        let first = publish(&sb, &s, &t, "app.pbt", "Notes app <b>cold start</b>");
        assert_eq!(first["created"], true, "{first}");
        assert_eq!(first["anonymised"], "literals");
        assert_eq!(first["statements"], 21);
        let sha = first["sha256"].as_str().unwrap().to_string();
        let again = publish(&sb, &s, &t, "app.pbt", "Another title");
        assert_eq!(
            (again["created"].as_bool(), again["sha256"].as_str()),
            (Some(false), Some(sha.as_str()))
        );
        let gallery = s.get_json("/api/v1/traces");
        assert_eq!(gallery["total"], 1, "{}: {gallery}", b.name);
        assert_eq!(gallery["traces"][0]["title"], "Notes app <b>cold start</b>");
        assert_eq!(gallery["traces"][0]["mix"]["INSERT"], 10);
        assert_eq!(gallery["traces"][0]["mix"]["SELECT"], 10);
        assert_eq!(gallery["traces"][0]["connections"], 1);

        // A plan naming the trace by its page's address, on two engines.
        let address = format!("{}/traces/{sha}", s.url);
        let plan = format!(
            "name = \"notes\"\nrepeats = 1\n[run]\ntrace = \"{address}\"\ndelay = \"zero\"\nno-overhead = true\n[axes]\nengine = [\"sqlite\", \"null\"]\n"
        );
        let r = post(
            &s.client(Some(&t)),
            "/api/v1/plans",
            &json!({"plan": plan, "class": "lab"}),
        );
        assert_eq!(r.status, 201, "{}", r.message());
        let one = agent(&sb, &s, &t, "phone-a", "1");
        let two = agent(&sb, &s, &t, "phone-b", "0");
        assert!(one.contains("1 cells run, 0 failed"), "{one}");
        assert!(two.contains("1 cells run, 0 failed"), "{two}");
        // `trace pull` finds it in the cache it shares with a run, and copies it out.
        let pulled = pb_cached(
            &sb,
            "cache-phone-a",
            &t,
            &["trace", "pull", &address, "-o", "pulled.pbt"],
        )
        .expect_ok();
        assert_eq!(pulled.stdout.trim(), "pulled.pbt");
        assert_eq!(
            std::fs::read(sb.path("pulled.pbt")).unwrap(),
            std::fs::read(sb.path("app.pbt")).unwrap()
        );
        for name in ["phone-a", "phone-b"] {
            let cached = sb.path(&format!("cache-{name}/pocketbench/traces/{sha}.pbt"));
            assert_eq!(
                std::fs::read(cached).unwrap(),
                std::fs::read(sb.path("app.pbt")).unwrap()
            );
        }

        let gallery = s.get_json("/api/v1/traces");
        let row = &gallery["traces"][0];
        assert_eq!(
            (row["runs"].as_i64(), row["devices"].as_i64()),
            (Some(2), Some(1)),
            "{row}"
        );
        let trace = s.get_json(&format!("/api/v1/traces/{sha}"));
        let setups = trace["setups"].as_array().unwrap();
        let names: Vec<&str> = setups
            .iter()
            .map(|x| x["setup"].as_str().unwrap())
            .collect();
        assert_eq!(setups.len(), 2, "{trace}");
        assert!(names.contains(&"null"), "{names:?}");
        assert!(names.iter().any(|n| n.starts_with("sqlite")), "{names:?}");
        // Each setup's ranking: the one model, one result kept of one, its mean the stored
        // result's own busy time and p95.
        let results = s.get_json("/api/v1/results");
        for setup in setups {
            let engine = setup["setup"].as_str().unwrap().split(' ').next().unwrap();
            let stored = results
                .as_array()
                .unwrap()
                .iter()
                .map(|r| s.get_json(&format!("/api/v1/results/{}", r["id"])))
                .find(|r| r["result"]["engine"]["name"] == engine)
                .unwrap();
            let time = &stored["result"]["time"];
            let busy =
                (time["on_cpu_ns"].as_f64().unwrap() + time["off_cpu_ns"].as_f64().unwrap()) / 1e6;
            let p95 = stored["result"]["latency_us"]["all"]["p95"]
                .as_f64()
                .unwrap();
            assert_eq!(setup["runs"], 1, "{setup}");
            for (figure, want) in [("busy", busy), ("p95", p95)] {
                let top = setup[figure].as_array().unwrap();
                assert_eq!(top.len(), 1, "{setup}");
                assert_eq!(
                    (top[0]["kept"].as_i64(), top[0]["total"].as_i64()),
                    (Some(1), Some(1))
                );
                assert!(
                    (top[0]["mean"].as_f64().unwrap() - want).abs() < 1e-9 * want.max(1.0),
                    "{figure}: {setup}"
                );
            }
        }
        assert_eq!(trace["stats"]["statements"], 21, "{}", trace["stats"]);

        // The pages, as Chromium builds them: the title escaped, both setups ranked.
        if let Some(exe) = common::browser::chromium() {
            let dir = tempfile::tempdir().unwrap();
            for (name, path) in [
                ("gallery", "/traces?q=NOTES".to_string()),
                ("trace", format!("/traces/{sha}")),
            ] {
                let out = common::browser::browse(
                    &exe,
                    &dir.path().join(name),
                    &["--dump-dom", &format!("{}{path}", s.url)],
                );
                let dom = String::from_utf8_lossy(&out.stdout).into_owned();
                assert!(
                    dom.contains("Notes app &lt;b&gt;cold start&lt;/b&gt;"),
                    "{name}: {dom}"
                );
                assert!(!dom.contains("<b>cold start"), "{name}: unescaped");
                if name == "gallery" {
                    assert_eq!(dom.matches("<tr class=\"trace\"").count(), 1, "{dom}");
                } else {
                    assert_eq!(dom.matches("<tr class=\"setup\"").count(), 2, "{dom}");
                    assert!(dom.contains("id=\"arrivals-chart\""), "{dom}");
                    assert_eq!(dom.matches("<tr class=\"ranked\"").count(), 4, "{dom}");
                    assert!(
                        !dom.contains("secret note"),
                        "an anonymised trace's page shows a literal"
                    );
                }
            }
        }
        let none = s.get_json("/api/v1/traces?q=nothing%20like%20this");
        assert_eq!(none["total"], 0);
    }
}

#[test]
fn unanonymised_and_corrupted_uploads_are_refused_and_nothing_is_stored() {
    let sb = Sandbox::new();
    traces(&sb);
    let good = std::fs::read(sb.path("app.pbt")).unwrap();
    // One byte of the last record block changed, and the file cut short.
    let mut flipped = good.clone();
    let at = good.len() - 60;
    flipped[at] ^= 0x55;
    sb.write("flipped.pbt", &flipped);
    sb.write("short.pbt", &good[..good.len() - 10]);
    sb.write("empty.pbt", b"");
    for b in backends() {
        let s = Server::start(&b, &["--rate-limit", "0"]);
        let t = s.token("lab");
        let c = s.client(Some(&t));
        let upload = |file: &str, query: &str| {
            c.post_file(&format!("/api/v1/traces?title=x{query}"), &sb.path(file))
                .unwrap()
        };
        for (file, needle) in [
            ("raw.pbt", "without anonymisation"),
            ("flipped.pbt", "checksum mismatch"),
            ("short.pbt", "truncated"),
            ("empty.pbt", "empty"),
        ] {
            let r = upload(file, "");
            assert_eq!(r.status, 400, "{}: {file}: {}", b.name, r.message());
            assert!(
                r.message().starts_with("trace: ") && r.message().contains(needle),
                "{file}: {}",
                r.message()
            );
            assert!(
                !r.message().contains("pocketbench-upload"),
                "{}",
                r.message()
            );
        }
        // The command line refuses the raw trace before sending it (exit 2, one line).
        let out = pb_cached(
            &sb,
            "cache",
            &t,
            &[
                "submit", "--server", &s.url, "--trace", "raw.pbt", "--title", "raw",
            ],
        );
        assert_eq!(out.code, Some(2), "{}", out.stderr);
        assert!(out.stderr.contains("--unanonymised"), "{}", out.stderr);
        assert_eq!(s.get_json("/api/v1/traces")["total"], 0);
        for table in ["traces", "trace_chunks"] {
            assert_eq!(rows(&b, table), 0, "{}: {table}", b.name);
        }
        // Without a token, or a title: refused.
        assert_eq!(
            s.client(None)
                .post_file("/api/v1/traces?title=x", &sb.path("app.pbt"))
                .unwrap()
                .status,
            401
        );
        assert_eq!(
            c.post_file("/api/v1/traces", &sb.path("app.pbt"))
                .unwrap()
                .status,
            400
        );
        // Said on purpose, the raw trace is published, marked so; it downloads byte for byte.
        let r = upload("raw.pbt", "&unanonymised=yes");
        assert_eq!(r.status, 201, "{}", r.message());
        let v: Value = r.json().unwrap();
        assert_eq!(v["anonymised"], "no");
        let mut got = Vec::new();
        let d = c
            .download(
                &format!("/api/v1/traces/{}/file", v["sha256"].as_str().unwrap()),
                &mut got,
                1 << 20,
            )
            .unwrap();
        assert_eq!(d.status, 200);
        assert_eq!(got, std::fs::read(sb.path("raw.pbt")).unwrap());
        assert_eq!((rows(&b, "traces"), rows(&b, "trace_chunks")), (1, 1));
        // An address the server does not have: bad input, nothing cached.
        let missing = format!("{}/traces/{}", s.url, "0".repeat(64));
        let out = pb_cached(
            &sb,
            "cache-x",
            &t,
            &["run", "--trace", &missing, "--results", "r.db"],
        );
        assert_eq!(out.code, Some(2), "{}", out.stderr);
        assert!(out.stderr.contains("no such trace"), "{}", out.stderr);
        assert!(!sb.path("r.db").exists());
    }
}

#[test]
fn a_hostile_trace_is_published_and_replayed_from_the_server_without_touching_anything_outside() {
    let sb = Sandbox::new();
    let outside = hostile_trace(&sb);
    for b in backends() {
        let s = Server::start(&b, &["--rate-limit", "0"]);
        let t = s.token("lab");
        let published = publish(&sb, &s, &t, "hostile.pbt", "hostile");
        assert_eq!(published["anonymised"], "generated", "{published}");
        assert!(
            listing(&outside).is_empty(),
            "{}: {:?}",
            b.name,
            listing(&outside)
        );
        let address = published["url"].as_str().unwrap();
        let out = pb_cached(
            &sb,
            &format!("cache-{}", b.name),
            &t,
            &[
                "run",
                "--trace",
                address,
                "--delay",
                "zero",
                "--dir",
                "replay",
                "--results",
                "hostile.db",
            ],
        );
        assert_ne!(out.code, Some(0), "{}", out.stdout);
        assert!(
            out.stderr.contains("load phase")
                && out.stderr.contains("refused: ATTACH or VACUUM INTO of"),
            "{}",
            out.stderr
        );
        assert!(
            listing(&outside).is_empty(),
            "{}: {:?}",
            b.name,
            listing(&outside)
        );
    }
}

#[test]
fn two_servers_on_one_postgres_store_a_trace_published_through_both_once() {
    let Some(b) = backends().into_iter().find(|b| b.name == "postgres") else {
        return;
    };
    let sb = Sandbox::new();
    traces(&sb);
    let (one, two) = (
        Server::start(&b, &["--rate-limit", "0"]),
        Server::start(&b, &["--rate-limit", "0"]),
    );
    let t = one.token("lab");
    // The same bytes through both at once, four times each: one entry, stored once.
    let statuses: Vec<u16> = std::thread::scope(|scope| {
        let handles: Vec<_> = [&one, &two, &one, &two, &one, &two, &one, &two]
            .into_iter()
            .map(|s| {
                let (c, file) = (s.client(Some(&t)), sb.path("app.pbt"));
                scope.spawn(move || {
                    c.post_file("/api/v1/traces?title=shared", &file)
                        .unwrap()
                        .status
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert_eq!(
        statuses.iter().filter(|s| **s == 201).count(),
        1,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        7,
        "{statuses:?}"
    );
    assert_eq!((rows(&b, "traces"), rows(&b, "trace_chunks")), (1, 1));
    let sha = one.get_json("/api/v1/traces")["traces"][0]["sha256"]
        .as_str()
        .unwrap()
        .to_string();
    for s in [&one, &two] {
        let mut got = Vec::new();
        let r = s
            .client(None)
            .download(&format!("/api/v1/traces/{sha}/file"), &mut got, 1 << 20)
            .unwrap();
        assert_eq!(r.status, 200);
        assert_eq!(got, std::fs::read(sb.path("app.pbt")).unwrap());
    }
}

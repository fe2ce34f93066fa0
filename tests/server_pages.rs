//! The results server's dashboard in headless Chromium (installed by scripts/test.sh), on each
//! back end: every page renders (a screenshot of each is taken and kept in Cargo's
//! CARGO_TARGET_TMPDIR), and the DOM Chromium builds shows the hand-worked ranking in order, the
//! two clusters of a model with two storage vendors, the comparison of two models and a
//! result's full report; the models not ranked yet with why ("3 of 5 results"), labelled
//! points on the first-seen chart, each model's distribution and its points coloured by cluster, categories without results collapsed on the index, and the
//! all-models page searched, a ranking filtered by file system.
#![cfg(feature = "server")]

mod common;

use common::browser::{browse, png_size, require_chromium};
use common::server::{backends, post, storage_result, submission, Server};

/// The `data-model` values of the ranking table's rows, in page order.
fn ranked_models(dom: &str) -> Vec<String> {
    dom.split("<tr class=\"ranked\" data-model=\"")
        .skip(1)
        .map(|s| s.split('"').next().unwrap().to_string())
        .collect()
}

#[test]
fn every_page_renders_with_the_expected_rows() {
    let exe = require_chromium();
    for b in backends() {
        let s = Server::start(&b, &["--rate-limit", "0", "--min-results", "5"]);
        let c = s.client(Some(&s.token("lab")));
        let mut n = 0;
        let mut send = |model: &str, disk: &str, v: f64| {
            n += 1;
            assert_eq!(
                post(
                    &c,
                    "/api/v1/results",
                    &submission(model, disk, storage_result(v, n))
                )
                .status,
                201
            );
        };
        // Fast: 300…305; Slow & Co: 100…105; Vendors: 6 at ~18 (disk A) and 6 at ~13 (disk B).
        // Ranked by mean: Fast 302.5, Slow & Co 102.5, Vendors 15.5.
        for i in 0..6 {
            send("Fast", "F1", 300.0 + i as f64);
            send("Slow & Co", "S1", 100.0 + i as f64);
            send("Vendors", "A", 18.0 + i as f64 * 0.01);
            send("Vendors", "B", 13.0 + i as f64 * 0.01);
        }
        for i in 0..3 {
            send("Few", "F2", 50.0 + i as f64);
        }
        // Ext: five results at 20…24 (mean 22), the only ones on ext4.
        for i in 0..5 {
            let mut ext = submission(
                "Ext",
                "E1",
                storage_result(20.0 + f64::from(i), 100 + i as usize),
            );
            ext["device"]["storage"]["file_system"] = serde_json::json!("ext4");
            assert_eq!(post(&c, "/api/v1/results", &ext).status, 201);
        }
        let dir = tempfile::tempdir().unwrap();
        let pages = [
            ("index", "/".to_string()),
            ("ranking", "/rankings/seq-read".to_string()),
            ("device", "/devices/Vendors".to_string()),
            ("compare", "/compare?a=Fast&b=Slow%20%26%20Co".to_string()),
            ("result", "/results/1".to_string()),
            ("report", "/results/1/report".to_string()),
            ("models", "/models?q=VEND".to_string()),
            ("login", "/login".to_string()),
            ("filtered", "/rankings/seq-read?fs=ext4".to_string()),
        ];
        for (name, path) in &pages {
            let url = format!("{}{path}", s.url);
            let dom = browse(
                &exe,
                &dir.path().join(format!("dom-{name}")),
                &["--dump-dom", &url],
            );
            let dom = String::from_utf8_lossy(&dom.stdout).into_owned();
            match *name {
                "index" => {
                    assert!(dom.contains("data-category=\"seq-read\""), "{dom}");
                    // Only seq-read has results: the others are collapsed.
                    assert!(dom.contains("<details id=\"empty-categories\">"), "{dom}");
                    assert!(!dom.contains("<tr class=\"category\" data-category=\"seq-write\""));
                    assert!(
                        dom.contains("<li class=\"empty-category\" data-category=\"seq-write\"")
                    );
                }
                "login" => assert!(dom.contains("<form id=\"login\""), "{dom}"),
                "filtered" => {
                    // Only Ext has ext4 results; the form offers both file systems.
                    assert_eq!(ranked_models(&dom), ["Ext"], "{dom}");
                    assert!(dom.contains("id=\"filtered\""));
                    assert!(
                        dom.contains("<option value=\"ext4\" selected=\"\">ext4</option>"),
                        "{dom}"
                    );
                    assert!(
                        dom.contains("<option value=\"f2fs\">f2fs</option>"),
                        "{dom}"
                    );
                }
                "models" => {
                    // "VEND" finds Vendors (by name) only; four models in all.
                    assert_eq!(dom.matches("<tr class=\"model\"").count(), 1, "{dom}");
                    assert!(dom.contains("data-model=\"Vendors\""));
                    assert!(dom.contains("1 of 5 models."), "{dom}");
                }
                "ranking" => {
                    assert_eq!(
                        ranked_models(&dom),
                        ["Fast", "Slow &amp; Co", "Ext", "Vendors"],
                        "{}",
                        b.name
                    );
                    assert!(
                        dom.contains("id=\"ranking-chart\"")
                            && dom.contains("id=\"first-seen-chart\"")
                    );
                    assert!(
                        dom.contains("<tr class=\"unranked\" data-model=\"Few\">"),
                        "{dom}"
                    );
                    assert!(dom.contains("3 of 5 results"), "{dom}");
                    assert!(dom.contains("class=\"point-label\""), "{dom}");
                    assert!(dom.contains(">Slow &amp; Co</text>"), "{dom}");
                }
                "device" => {
                    assert_eq!(dom.matches("<tr class=\"cluster\">").count(), 2, "{dom}");
                    assert!(dom.contains("told apart by storage model"), "{dom}");
                    assert!(dom.contains("id=\"time-seq-read\""));
                    // The kept results' distribution beside the mean, and each point over
                    // time coloured (and titled) by its cluster.
                    assert!(dom.contains("id=\"dist-seq-read\""), "{dom}");
                    // Seq-read means: Fast 302.5, Slow & Co 102.5, Few 51, Ext 22, Vendors
                    // 15.525: the median is 51; Vendors scores 1000 × 15.525/51 = 304.
                    assert!(dom.contains("Storage score: <strong>304</strong>"), "{dom}");
                    assert!(dom.contains("class=\"median\""), "{dom}");
                    assert!(dom.contains("Distribution of the 12 kept results"), "{dom}");
                    assert_eq!(dom.matches("(cluster 1)").count(), 6, "{dom}");
                    assert_eq!(dom.matches("(cluster 2)").count(), 6, "{dom}");
                }
                "compare" => {
                    assert!(dom.contains("<tr class=\"compared\" data-category=\"seq-read\">"));
                    // Means 302.5 and 102.5 (300…305 and 100…105): 2.95×.
                    assert!(dom.contains("2.95×"), "{dom}");
                }
                "result" => assert!(dom.contains("href=\"/results/1/report\"")),
                _ => assert!(
                    dom.contains("id=\"report\"") && dom.contains("seq-read"),
                    "{dom}"
                ),
            }
            let shot = dir.path().join(format!("{name}.png"));
            browse(
                &exe,
                &dir.path().join(format!("shot-{name}")),
                &[
                    &format!("--screenshot={}", shot.display()),
                    "--window-size=1000,1400",
                    &url,
                ],
            );
            let bytes = std::fs::read(&shot).expect("screenshot written");
            assert_eq!(png_size(&bytes), (1000, 1400));
            let keep = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"))
                .join(format!("server-{}-{name}.png", b.name));
            std::fs::copy(&shot, keep).unwrap();
        }
    }
}

//! The results server's JSON API on each back end (SQLite; PostgreSQL when the machine has
//! one — scripts/test.sh starts a real cluster): submissions are stored once (re-submission
//! answers with the same id), listed and read back; rankings apply the 3σ rule and the
//! 25-result minimum with hand-worked answers; a model whose results come from two storage
//! vendors shows two clusters told apart by the storage model.
#![cfg(feature = "server")]

mod common;

use common::server::{backends, post, storage_result, submission, Server};
use serde_json::json;

#[test]
fn submissions_are_stored_once_and_read_back() {
    for b in backends() {
        let s = Server::start(&b, &[]);
        let c = s.client(Some(&s.token("lab")));
        let sub = submission("Pixel 7", "KLUDG4U", storage_result(812.5, 1));
        let r = post(&c, "/api/v1/results", &sub);
        assert_eq!(r.status, 201, "{}: {}", b.name, r.message());
        let id = r.json::<serde_json::Value>().unwrap()["id"]
            .as_i64()
            .unwrap();
        // The same result again (keys in the reverse order): 200 and the same id.
        let reversed: serde_json::Map<String, serde_json::Value> = storage_result(812.5, 1)
            .as_object()
            .unwrap()
            .iter()
            .rev()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let again = post(
            &c,
            "/api/v1/results",
            &submission("Pixel 7", "KLUDG4U", reversed.into()),
        );
        assert_eq!(again.status, 200, "{}", b.name);
        assert_eq!(again.json::<serde_json::Value>().unwrap()["id"], id);
        assert_eq!(s.healthy_count(), 1, "{}", b.name);

        let list = s.get_json("/api/v1/results?model=Pixel%207&category=seq-read");
        assert_eq!(list.as_array().unwrap().len(), 1);
        assert_eq!(list[0]["storage_model"], "KLUDG4U");
        assert_eq!(
            list[0]["metrics"],
            json!([{"category": "seq-read", "value": 812.5}])
        );
        assert_eq!(
            s.get_json("/api/v1/results?model=Other")
                .as_array()
                .unwrap()
                .len(),
            0
        );
        let one = s.get_json(&format!("/api/v1/results/{id}"));
        assert_eq!(one["result"]["files"][0]["mib_s"]["mean"], 812.5);
        assert_eq!(one["device"]["storage"]["file_system"], "f2fs");
        assert_eq!(
            s.client(None).get("/api/v1/results/999").unwrap().status,
            404
        );
    }
}

#[test]
fn rankings_apply_the_three_sigma_rule_and_the_minimum() {
    for b in backends() {
        let s = Server::start(&b, &["--rate-limit", "0"]);
        let c = s.client(Some(&s.token("lab")));
        let mut n = 0;
        let mut send = |model: &str, v: f64| {
            n += 1;
            let r = post(
                &c,
                "/api/v1/results",
                &submission(model, "", storage_result(v, n)),
            );
            assert_eq!(r.status, 201, "{}", r.message());
        };
        // Alpha: 25 × 100 and one 1000. Mean 3500/26 = 134.6, sample sd 176.5; 1000 is 865.4
        // from the mean, more than 3 sd (529.5): dropped. 25 kept at 100, sd 0: ranked.
        for _ in 0..25 {
            send("Alpha", 100.0);
        }
        send("Alpha", 1000.0);
        // Beta: 15 × 120 and 15 × 140: mean 130, sd √(30·100/29) = 10.17, all kept.
        for i in 0..30 {
            send("Beta", if i % 2 == 0 { 120.0 } else { 140.0 });
        }
        // Gamma: 24 × 500, the best mean but one result short of 25: not ranked.
        for _ in 0..24 {
            send("Gamma", 500.0);
        }
        let r = s.get_json("/api/v1/rankings/seq-read");
        let top = r["top"].as_array().unwrap();
        assert_eq!(top.len(), 2, "{}: {r}", b.name);
        assert_eq!(
            (top[0]["model"].as_str(), top[0]["mean"].as_f64()),
            (Some("Beta"), Some(130.0))
        );
        assert!((top[0]["stddev"].as_f64().unwrap() - (3000.0f64 / 29.0).sqrt()).abs() < 1e-9);
        assert_eq!(
            (top[0]["kept"].as_i64(), top[0]["total"].as_i64()),
            (Some(30), Some(30))
        );
        assert_eq!(top[1]["model"], "Alpha");
        assert_eq!(
            (top[1]["mean"].as_f64(), top[1]["stddev"].as_f64()),
            (Some(100.0), Some(0.0))
        );
        assert_eq!(
            (top[1]["kept"].as_i64(), top[1]["total"].as_i64()),
            (Some(25), Some(26))
        );
        // A lower minimum ranks Gamma first.
        let low = s.get_json("/api/v1/rankings/seq-read?min_results=24");
        assert_eq!(low["top"][0]["model"], "Gamma");
        // One more Gamma result ranks it at the default minimum (the stale model is recomputed).
        send("Gamma", 500.0);
        assert_eq!(
            s.get_json("/api/v1/rankings/seq-read")["top"][0]["model"],
            "Gamma"
        );
        let trend = s.get_json("/api/v1/trends/seq-read");
        let models: Vec<&str> = trend["models"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["model"].as_str().unwrap())
            .collect();
        assert_eq!(models, ["Alpha", "Beta", "Gamma"], "by first-seen date");
        assert_eq!(
            s.client(None).get("/api/v1/rankings/nope").unwrap().status,
            404
        );
    }
}

#[test]
fn two_storage_vendors_show_as_two_clusters() {
    for b in backends() {
        let s = Server::start(&b, &["--rate-limit", "0"]);
        let c = s.client(Some(&s.token("lab")));
        for i in 0..30 {
            let (disk, v) = if i % 2 == 0 {
                ("KLM8G", 18.0 + (i % 3) as f64 * 0.1)
            } else {
                ("MAG4F", 13.0 + (i % 4) as f64 * 0.1)
            };
            let r = post(
                &c,
                "/api/v1/results",
                &submission("GT-I9000", disk, storage_result(v, i)),
            );
            assert_eq!(r.status, 201);
        }
        let d = s.get_json("/api/v1/devices/GT-I9000");
        let cat = &d["categories"][0];
        assert_eq!(cat["category"], "seq-read", "{}", b.name);
        let clusters = cat["clusters"].as_array().unwrap();
        assert_eq!(clusters.len(), 2, "{d}");
        assert_eq!(clusters[0]["results"], 15);
        assert_eq!(clusters[0]["attributes"][0]["value"], "MAG4F");
        assert_eq!(clusters[1]["attributes"][0]["value"], "KLM8G");
        assert_eq!(cat["distinguished_by"], json!(["storage model"]));
        assert_eq!(cat["by_file_system"][0]["name"], "f2fs");
        assert_eq!(cat["series"].as_array().unwrap().len(), 30);
        assert_eq!(
            s.client(None).get("/api/v1/devices/Nobody").unwrap().status,
            404
        );
    }
}

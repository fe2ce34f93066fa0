//! The HTML report of a study, opened in headless Chromium (installed by scripts/test.sh): the
//! page renders every chart with data, logs nothing to the console, loads nothing from the
//! network, and a screenshot is taken (kept as `report-screenshot.png` in Cargo's
//! CARGO_TARGET_TMPDIR for a person to look at).

mod common;

use common::browser::{browse, png_size, require_chromium};
use common::study::study_store;
use common::{arg, pb};
use std::path::Path;

#[test]
fn report_renders_its_charts_in_headless_chromium() {
    let exe = require_chromium();
    let (_, store) = study_store();
    let dir = tempfile::tempdir().unwrap();
    let html = dir.path().join("report.html");
    pb(["report", "--results", arg(&store), "-o", arg(&html)]).expect_ok();
    let page = std::fs::read_to_string(&html).unwrap();
    // Self-contained: no scripts, no external resources.
    assert!(!page.contains("<script") && !page.contains("src=") && !page.contains("href=\"http"));
    let url = format!("file://{}", html.display());

    let dom = browse(&exe, &dir.path().join("profile-dom"), &["--dump-dom", &url]);
    let text = String::from_utf8_lossy(&dom.stdout);
    let log = String::from_utf8_lossy(&dom.stderr);
    let console: Vec<&str> = log.lines().filter(|l| l.contains(":CONSOLE")).collect();
    assert!(console.is_empty(), "console messages: {console:#?}");
    let charts: Vec<u64> = text
        .split("<svg ")
        .skip(1)
        .filter(|s| s.contains("class=\"chart\""))
        .map(|s| {
            let at = s.find("data-points=\"").expect("data-points") + 13;
            s[at..].split('"').next().unwrap().parse().unwrap()
        })
        .collect();
    assert_eq!(
        charts.len(),
        7,
        "charts in the rendered DOM (per-kind the seventh)"
    );
    assert!(
        charts.iter().all(|&n| n > 0),
        "every chart has data: {charts:?}"
    );
    assert!(text.contains("Summary") && text.contains("Environment"));

    let shot = dir.path().join("shot.png");
    browse(
        &exe,
        &dir.path().join("profile-shot"),
        &[
            &format!("--screenshot={}", shot.display()),
            "--window-size=1200,3000",
            &url,
        ],
    );
    let bytes = std::fs::read(&shot).expect("screenshot written");
    assert_eq!(png_size(&bytes), (1200, 3000));
    assert!(bytes.len() > 50_000, "a blank page compresses far smaller");
    let keep = Path::new(env!("CARGO_TARGET_TMPDIR")).join("report-screenshot.png");
    std::fs::copy(&shot, &keep).unwrap();
    eprintln!("screenshot: {}", keep.display());
}

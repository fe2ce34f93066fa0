//! The HTML report of a study, opened in headless Chromium (installed by scripts/test.sh): the
//! page renders every chart with data, logs nothing to the console, loads nothing from the
//! network, and a screenshot is taken (kept as `report-screenshot.png` in Cargo's
//! CARGO_TARGET_TMPDIR for a person to look at).

mod common;

use common::study::study_store;
use common::{arg, pb};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("POCKETBENCH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// Headless Chromium with a fresh profile and nothing that reaches the network.
fn browser(exe: &Path, profile: &Path) -> Command {
    let mut c = Command::new(exe);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// Run the browser with `args`, which must succeed.
fn browse(exe: &Path, profile: &Path, args: &[&str]) -> Output {
    let out = browser(exe, profile).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Width and height from a PNG's IHDR chunk.
fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[1..4], b"PNG");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}

#[test]
fn report_renders_its_charts_in_headless_chromium() {
    let Some(exe) = chromium() else {
        panic!(
            "Chromium is not installed: scripts/test.sh installs the Debian package chromium \
             (or set POCKETBENCH_CHROMIUM to a Chromium binary)"
        );
    };
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

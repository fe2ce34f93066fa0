//! `pocketbench report` figures that join features built apart: CPU frequency over time
//! beside latency (a run sampled over a fake sysfs tree whose frequency changes during the
//! run; and a note instead when no run has a timeline), and the flashbench figures (a tiny
//! grid, alone and beside ordinary runs, as HTML and as PNG/SVG files, each file saying which
//! run it shows and that its flash counts are modelled). A figure directory written again from
//! another store keeps no figure of the first.

mod common;

use common::{arg, Sandbox};
use pocketbench::platform::fake_sysfs::Tree;
use std::path::Path;

const CUR0: &str = "devices/system/cpu/cpufreq/policy0/scaling_cur_freq";

/// (id, data-points) of every chart in an HTML report or SVG file.
fn charts(text: &str) -> Vec<(String, u64)> {
    text.split("<svg ")
        .skip(1)
        .filter(|s| s.contains("class=\"chart\""))
        .map(|s| {
            let attr = |name: &str| {
                let at = s.find(&format!("{name}=\"")).unwrap() + name.len() + 2;
                s[at..].split('"').next().unwrap().to_string()
            };
            (attr("id"), attr("data-points").parse().unwrap())
        })
        .collect()
}

fn points(text: &str, id: &str) -> u64 {
    charts(text)
        .into_iter()
        .find(|c| c.0 == id)
        .unwrap_or_else(|| panic!("no chart {id} in {:?}", charts(text)))
        .1
}

/// `report` of the store into `out.html`; the page.
fn html_report(sb: &Sandbox) -> String {
    let html = sb.path("out.html");
    sb.pb(["report", "--results", arg(&sb.results()), "-o", arg(&html)])
        .expect_ok();
    std::fs::read_to_string(html).unwrap()
}

/// A paced 60-operation run over the fake tree `root`.
fn run_over(sb: &Sandbox, root: &Path, extra: &[&str]) {
    let results = sb.results();
    let mut args = vec![
        "--sysfs-root",
        arg(root),
        "run",
        "--ops",
        "60",
        "--records",
        "50",
        "--delay",
        "fixed:1ms",
        "--no-overhead",
        "--quiet",
        "--results",
        arg(&results),
    ];
    args.extend_from_slice(extra);
    sb.pb(args).expect_ok();
}

/// Watch `path` (inotify, set up before this returns) and write each `(n, value)` into it
/// after its n-th read (IN_CLOSE_NOWRITE: the sampler opens, reads and closes the file; the
/// watcher's own writes are not reads). The thread ends after the last step.
fn step_on_reads(path: &Path, steps: &'static [(u32, &'static str)]) {
    let c = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    // SAFETY: plain inotify calls on a NUL-terminated path; the buffer outlives each read.
    let fd = unsafe { libc::inotify_init() };
    assert!(fd >= 0);
    assert!(unsafe { libc::inotify_add_watch(fd, c.as_ptr(), libc::IN_CLOSE_NOWRITE) } >= 0);
    let path = path.to_path_buf();
    std::thread::spawn(move || {
        let mut reads = 0;
        let mut buf = [0u8; 4096];
        for &(n, value) in steps {
            while reads < n {
                let got = unsafe { libc::read(fd, buf.as_mut_ptr().cast(), buf.len()) };
                assert!(got > 0, "inotify read failed");
                // Events are 16 bytes plus a name (none for a watched file).
                let mut at = 0;
                while at < got as usize {
                    let len = u32::from_ne_bytes(buf[at + 12..at + 16].try_into().unwrap());
                    at += 16 + len as usize;
                    reads += 1;
                }
            }
            std::fs::write(&path, format!("{value}\n")).unwrap();
        }
        unsafe { libc::close(fd) };
    });
}

#[test]
fn frequency_is_drawn_under_latency_on_the_same_time_axis() {
    let sb = Sandbox::new();
    let t = Tree::big_little();
    // The LITTLE cluster clocks up after the sampler's 3rd read of its frequency and down
    // after the 6th, whenever those happen, so the run sees both however fast the machine is.
    step_on_reads(&t.path(CUR0), &[(3, "1800000"), (6, "900000")]);
    run_over(&sb, t.root(), &["--freq-sample", "1ms"]);
    let stored = common::count(
        &sb.results(),
        "SELECT count(DISTINCT khz) FROM frequency_samples WHERE policy = 'policy0'",
        [],
    );
    assert!(
        stored >= 2,
        "the timeline saw the steps: {stored} frequencies"
    );
    let page = html_report(&sb);
    let n = points(&page, "latency-over-time");
    // 60 operations, and step corners for two policies (each at least two points).
    assert!(n >= 60 + 4, "{n} points");
    let figure = page.split("id=\"fig-latency-over-time\"").nth(1).unwrap();
    let figure = figure.split("</section>").next().unwrap();
    assert!(figure.contains(">MHz</text>"), "a frequency axis");
    assert!(figure.contains(">policy0</text>") && figure.contains(">policy4</text>"));
    assert!(
        !figure.contains("No CPU frequency"),
        "no note when there is data"
    );
    // Same scale as the latency strip's x axis: the strip's ticks repeat the panel's.
    assert_eq!(figure.matches(">time since run start").count(), 1);

    // PNG figures are in builds with the `png` feature (`full`, which scripts/test.sh tests).
    if !cfg!(feature = "png") {
        return;
    }
    let figs = sb.path("figs");
    sb.pb([
        "report",
        "--results",
        arg(&sb.results()),
        "--format",
        "png",
        "-o",
        arg(&figs),
    ])
    .expect_ok();
    let png = std::fs::read(figs.join("latency-over-time.png")).unwrap();
    assert_eq!(&png[1..4], b"PNG");
    if let Ok(keep) = std::env::var("POCKETBENCH_KEEP_FIGURES") {
        std::fs::copy(figs.join("latency-over-time.png"), keep).unwrap();
    }
}

#[test]
fn without_a_frequency_timeline_a_note_says_why() {
    let sb = Sandbox::new();
    let t = Tree::empty();
    run_over(&sb, t.root(), &[]);
    let page = html_report(&sb);
    assert_eq!(
        charts(&page).len(),
        6,
        "the run figures, no flashbench ones"
    );
    assert!(points(&page, "latency-over-time") >= 60);
    let figure = page.split("id=\"fig-latency-over-time\"").nth(1).unwrap();
    let figure = figure.split("</section>").next().unwrap();
    let note = figure
        .lines()
        .find(|l| l.starts_with("<p class=\"note\">"))
        .expect("a note");
    assert!(
        note.contains("No CPU frequency over time")
            && note.contains("no cpufreq on the device that produced these runs"),
        "{note}"
    );
    assert!(!figure.contains(">MHz</text>"), "no empty frequency strip");
}

/// `flashbench` on a tiny grid into this sandbox's store.
fn tiny_flashbench(sb: &Sandbox) {
    let grid = "flashbench --requests insert,select,join,update --sizes 150,600 --counts 10,20,30";
    let mut args = common::words(grid);
    let (results, dir) = (sb.results(), sb.path(""));
    args.extend(["--flash", "capacity_mib=16", "--results", arg(&results)]);
    args.extend(["--dir", arg(&dir)]);
    sb.pb(args).expect_ok();
}

const FLASH_FIGURES: [&str; 5] = [
    "flashbench-response-time",
    "flashbench-throughput",
    "flashbench-reads-per-kb",
    "flashbench-programs-per-kb",
    "flashbench-erases-per-kb",
];

#[test]
fn flashbench_runs_get_figures_against_request_count() {
    let sb = Sandbox::new();
    tiny_flashbench(&sb);
    let page = html_report(&sb);
    let ids: Vec<String> = charts(&page).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, FLASH_FIGURES, "a store of flashbench runs alone");
    // 4 request types × 2 record sizes × 3 counts.
    assert_eq!(points(&page, "flashbench-response-time"), 24);
    assert_eq!(points(&page, "flashbench-throughput"), 24);
    assert!(points(&page, "flashbench-reads-per-kb") > 0);
    assert!(points(&page, "flashbench-programs-per-kb") > 0);
    assert!(page.contains(">INSERT</text>") && page.contains(">JOIN</text>"));
    assert!(page.contains("150-byte records") && page.contains("600-byte records"));
    assert!(
        page.contains("not from the device"),
        "modelled, and says so"
    );

    let formats: &[&str] = if cfg!(feature = "png") {
        &["png", "svg"]
    } else {
        &["svg"]
    };
    for &format in formats {
        let dir = sb.path(format);
        sb.pb([
            "report",
            "--results",
            arg(&sb.results()),
            "--format",
            format,
            "-o",
            arg(&dir),
        ])
        .expect_ok();
        for id in FLASH_FIGURES {
            let file = dir.join(format!("{id}.{format}"));
            let bytes = std::fs::read(&file).unwrap();
            match format {
                "png" => assert_eq!(&bytes[1..4], b"PNG"),
                _ => {
                    // The figure alone says which run it is and that flash counts are modelled.
                    let svg = String::from_utf8(bytes).unwrap();
                    assert!(points(&svg, id) > 0);
                    assert!(svg.contains("flashbench run #1, flash model preset slc-2k"));
                    assert!(svg.contains("are modelled, not measured"));
                }
            }
        }
        if let (Ok(keep), "png") = (std::env::var("POCKETBENCH_KEEP_FIGURES"), format) {
            std::fs::copy(dir.join("flashbench-response-time.png"), &keep).unwrap();
            std::fs::copy(
                dir.join("flashbench-erases-per-kb.png"),
                keep + ".erases.png",
            )
            .unwrap();
        }
    }

    // A second flashbench run is the one drawn, and the note says so; ordinary runs in the
    // same store keep their own figures before the flashbench ones.
    tiny_flashbench(&sb);
    run_over(&sb, Tree::empty().root(), &[]);
    let page = html_report(&sb);
    let ids: Vec<String> = charts(&page).into_iter().map(|c| c.0).collect();
    assert_eq!(ids.len(), 6 + 5, "{ids:?}");
    assert_eq!(ids[6..], FLASH_FIGURES);
    assert!(page.contains("Drawn from flashbench run #2, the latest of 2 in the store."));
}

#[test]
fn a_figure_directory_written_again_holds_only_the_new_report() {
    let sb = Sandbox::new();
    tiny_flashbench(&sb);
    let dir = sb.path("figures");
    let report = |results: &Path| {
        sb.pb([
            "report",
            "--results",
            arg(results),
            "--format",
            "svg",
            "-o",
            arg(&dir),
        ])
        .expect_ok()
    };
    report(&sb.results());
    std::fs::write(dir.join("notes.txt"), "mine").unwrap();
    // Another store, of ordinary runs only, into the same directory.
    let other = sb.path("other.db");
    sb.pb(common::words(
        "run --ops 20 --records 20 --delay zero --no-overhead -q --results other.db",
    ))
    .expect_ok();
    let out = report(&other);
    assert!(out.stdout.contains("removed 5 figure(s)"), "{}", out.stdout);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert!(
        names.iter().all(|n| !n.starts_with("flashbench-")),
        "{names:?}"
    );
    assert!(names.contains(&"notes.txt".to_string()), "{names:?}");
    assert!(names.iter().any(|n| n.ends_with(".svg")), "{names:?}");
}

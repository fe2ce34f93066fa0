//! Every command example of README.md, docs/*.md and the `Examples:` of every command's
//! `--help` (found by walking the clap command tree) runs as written and exits 0, the way
//! ripgrep and cargo check theirs. The examples of one Markdown file run in order in one scratch
//! directory, so each finds what the ones before it wrote; the help's examples share one, in
//! the tree's order. An example that cannot simply run to its end here carries a mark in
//! tests/examples.toml (the format is in that file's header and in docs/ARCHITECTURE.md), of
//! one kind, counted: not run, with the reason (hardware, a build of the tool);
//! a refusal, run and expected to exit non-zero; or run until stopped (a server, an agent, a
//! streamed log: tests/examples/stopped.rs), run as written in the background while the
//! document's next examples run, then stopped and checked. No mark changes a command's text.
//! Every example runs in quick mode
//! (`POCKETBENCH_QUICK=1`: long commands shorten themselves), so a long one needs no mark. Phones
//! and boards are the fake adb and ssh of tests/fixtures/fake-device: an x86_64 phone and a
//! board configured as `pi` in ~/.config/pocketbench/devices.toml. A mark that matches no
//! example fails too, so the marks stay true as the docs change. Where a document shows what
//! a command prints (a ```console block: `$ command`, then its output), what it printed must
//! match that by the rule of tests/examples/matching.rs, unless the output is marked as
//! illustrative with the reason; output shown anywhere else fails, as it would go unchecked.

// The docs show the results server, PNG figures and the data-model stores: the `full` build.
#![cfg(all(feature = "server", feature = "png", feature = "model-stores"))]

mod common;
#[path = "examples/markdown.rs"]
mod markdown;
#[path = "examples/marks.rs"]
mod marks;
#[path = "examples/matching.rs"]
mod matching;
#[path = "examples/scratch.rs"]
mod scratch;
#[path = "examples/stopped.rs"]
mod stopped;

use marks::{marks, Marked};
use scratch::{not_ignored, Scratch};
use std::collections::BTreeMap;
use std::path::PathBuf;
use stopped::Running;

/// One command example, where it is written.
#[derive(Clone, Debug)]
struct Example {
    /// `README.md:61` or `pocketbench run --help`.
    at: String,
    /// The command without its trailing comment or description: what marks name. Empty for
    /// output a ```console block shows under no command.
    command: String,
    /// The output the document shows under it (a ```console block).
    shown: Option<Shown>,
}

/// Output a document shows, matched by the rule of tests/examples/matching.rs.
#[derive(Clone, Debug)]
struct Shown {
    /// Where its first line is.
    at: String,
    lines: Vec<String>,
    /// Still taking lines while the block is read.
    open: bool,
}

impl Shown {
    /// What marks name it by: its first line that is not `…` (or `...`), trimmed.
    fn first(&self) -> &str {
        let mut lines = self.lines.iter().map(|l| l.trim());
        let first = lines.clone().next().unwrap_or("");
        lines.find(|l| !matches!(*l, "…" | "...")).unwrap_or(first)
    }
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The examples of a Markdown file and the problems of its blocks (tests/examples/markdown.rs).
fn markdown(rel: &str) -> (Vec<Example>, Vec<String>) {
    let text = std::fs::read_to_string(root().join(rel)).unwrap();
    markdown::examples(rel, &text)
}

/// The `Examples:` lines of `help` (a command's after-help text): `pocketbench …` (after any
/// `NAME=value` words) up to the first run of two spaces (the description beside it).
fn help_examples(help: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut inside = false;
    for line in help.lines() {
        if line.starts_with("Examples:") || line.starts_with("Example:") {
            inside = true;
        } else if line.trim().is_empty() {
            inside = false;
        } else if inside {
            let l = line.trim_start();
            // `pocketbench …`, or with variables first (`POCKETBENCH_TOKEN=… pocketbench …`).
            let command = l
                .split_whitespace()
                .find(|w| !w.contains('='))
                .unwrap_or("");
            if command == "pocketbench" {
                out.push(l.split("  ").next().unwrap_or(l).trim_end().to_string());
            }
        }
    }
    out
}

/// Every visible command of the tree, depth first, with its path (`trace show`).
fn commands() -> Vec<(String, clap::Command)> {
    fn walk(path: &str, c: &clap::Command, out: &mut Vec<(String, clap::Command)>) {
        out.push((path.to_string(), c.clone()));
        for s in c.get_subcommands().filter(|s| !s.is_hide_set()) {
            let p = format!("{path} {}", s.get_name()).trim().to_string();
            walk(&p, s, out);
        }
    }
    use clap::CommandFactory;
    let mut out = Vec::new();
    walk("", &pocketbench::commands::cli::Cli::command(), &mut out);
    out
}

fn help() -> Vec<Example> {
    let mut out = Vec::new();
    for (path, c) in commands() {
        let text = c
            .get_after_help()
            .map(|h| h.to_string())
            .unwrap_or_default();
        for command in help_examples(&text) {
            out.push(Example {
                at: format!("pocketbench {path} --help").replace("  ", " "),
                command,
                shown: None,
            });
        }
    }
    out
}

/// The sources: the help (one scratch directory), then README.md and docs/*.md; with the
/// problems of their blocks.
fn sources() -> (Vec<(String, Vec<Example>)>, Vec<String>) {
    let mut files: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    files.sort();
    files.insert(0, "README.md".into());
    let mut out = vec![("--help".to_string(), help())];
    let mut problems = Vec::new();
    for f in files {
        let (e, p) = markdown(&f);
        out.push((f, e));
        problems.extend(p);
    }
    (out, problems)
}

/// Which examples this run takes (POCKETBENCH_EXAMPLES_PASS): `scratch`, every example but
/// the checkout ones; `checkout`, only those (scripts/test.sh runs them once the builds they
/// need are done); unset, all.
#[derive(Clone, Copy, PartialEq)]
enum Pass {
    Scratch,
    Checkout,
}

fn pass() -> Option<Pass> {
    match std::env::var("POCKETBENCH_EXAMPLES_PASS").as_deref() {
        Ok("scratch") => Some(Pass::Scratch),
        Ok("checkout") => Some(Pass::Checkout),
        Ok("") | Err(_) => None,
        Ok(other) => panic!("POCKETBENCH_EXAMPLES_PASS={other:?}: expected scratch or checkout"),
    }
}

#[derive(Default)]
struct Tally {
    run: usize,
    device: usize,
    /// Outputs shown and matched.
    matched: usize,
    skipped: Vec<String>,
    /// Until-stopped examples started, run while the next ones ran, and stopped.
    stopped: usize,
    /// Outputs shown and not matched, with why.
    illustrative: Vec<String>,
    failed: Vec<String>,
}

/// How what `e` printed compares with the output its document shows: None when it matches or
/// shows none, else why not.
fn compare_shown(
    e: &Example,
    marks: &Marked,
    out: &str,
    err: &str,
    t: &mut Tally,
) -> Option<String> {
    let shown = e.shown.as_ref()?;
    if let Some(why) = marks.output.get(shown.first()) {
        t.illustrative
            .push(format!("{}: {}  — {why}", shown.at, shown.first()));
        return None;
    }
    t.matched += 1;
    // What quick mode says about itself is not part of what the docs show.
    let err: String = err
        .lines()
        .filter(|l| !l.starts_with("quick mode (POCKETBENCH_QUICK): "))
        .map(|l| format!("{l}\n"))
        .collect();
    let printed = format!("{out}{err}");
    if matching::output(&shown.lines, out) || matching::output(&shown.lines, &printed) {
        return None;
    }
    let lines: Vec<&str> = printed.lines().take(60).collect();
    Some(format!(
        "{}: what `{}` printed is not what the document shows (the rule is in tests/examples/matching.rs); it printed:\n    {}",
        shown.at,
        e.command,
        lines.join("\n    ")
    ))
}

/// Stop the until-stopped examples of `running` whose turn it is (all when `before` is None,
/// the last started first), counting them and what failed.
fn stop(running: &mut Vec<Running>, before: Option<&str>, t: &mut Tally) {
    let mut i = running.len();
    while i > 0 {
        i -= 1;
        if before.is_none() || running[i].stop_before.as_deref() == before {
            let r = running.remove(i);
            let (at, command) = (r.at.clone(), r.command.clone());
            t.stopped += 1;
            let late = match (before, &r.stop_before) {
                (None, Some(b)) => Err(format!(
                    "its mark stops it before {b:?}, which is no later example of its document"
                )),
                _ => Ok(()),
            };
            if let Err(why) = r.stop().and(late) {
                let failed = format!("{at}: {command}: {why}");
                eprintln!("FAILED {failed}");
                t.failed.push(failed);
            }
        }
    }
}

fn run_source(source: &str, examples: &[Example], marks: &Marked, t: &mut Tally) {
    let started = std::time::Instant::now();
    let pass = pass();
    let scratch = Scratch::new();
    let mut running: Vec<Running> = Vec::new();
    for e in examples {
        if e.command.is_empty() {
            let shown = e.shown.as_ref().unwrap();
            match marks.output.get(shown.first()) {
                Some(why) => t
                    .illustrative
                    .push(format!("{}: {}  — {why}", shown.at, shown.first())),
                None => t.failed.push(format!(
                    "{}: output shown under no `$ ` command: add the command, or mark it illustrative in tests/examples.toml",
                    shown.at
                )),
            }
            continue;
        }
        stop(&mut running, Some(&e.command), t);
        let mark = marks.by.get(&e.command);
        let in_checkout = mark.is_some_and(|m| m.checkout.is_some());
        if pass.is_some_and(|p| (p == Pass::Checkout) != in_checkout) {
            continue; // the other pass runs it
        }
        if let Some((kind, why)) = mark.and_then(|m| m.not_run()) {
            t.skipped
                .push(format!("{}: {}  — {kind}: {why}", e.at, e.command));
            if let Some(shown) = &e.shown {
                t.illustrative.push(format!(
                    "{}: {}  — its command is not run here",
                    shown.at,
                    shown.first()
                ));
            }
            continue;
        }
        if let Some(missing) = mark.and_then(|m| m.missing()) {
            t.failed.push(format!(
                "{}: {}: needs {missing}, which scripts/test.sh builds before this test (POCKETBENCH_REQUIRE_BUILDS is set)",
                e.at, e.command
            ));
            continue;
        }
        if let Some(m) = mark.filter(|m| m.until_stopped.is_some()) {
            let started = Running::start(
                &e.at,
                &e.command,
                m,
                &scratch.dir(),
                |c, out, err| scratch.start(c, out, err),
                &scratch.files(),
            );
            match started {
                Ok(r) => running.push(r),
                Err(why) => {
                    let failed = format!("{}: {}: {why}", e.at, e.command);
                    eprintln!("FAILED {failed}");
                    t.failed.push(failed);
                }
            }
            continue;
        }
        let want = mark.and_then(|m| m.status).unwrap_or(0);
        let command = &e.command;
        let t0 = std::time::Instant::now();
        // A checkout example runs where a user runs it: in the checkout's root.
        let (code, err, stdout, stderr) = scratch.sh_in(in_checkout.then(root).as_deref(), command);
        let secs = t0.elapsed().as_secs();
        if secs >= 10 {
            eprintln!("{}: {command}: {secs} s", e.at);
        }
        t.run += 1;
        if command.contains("pocketbench device ") {
            t.device += 1;
        }
        if code != want {
            let failed = format!("{}: {command}: exit {code} (expected {want}): {err}", e.at);
            eprintln!("FAILED {failed}");
            t.failed.push(failed);
        } else if let Some(failed) = compare_shown(e, marks, &stdout, &stderr, t) {
            eprintln!("FAILED {failed}");
            t.failed.push(failed);
        }
    }
    stop(&mut running, None, t);
    let took = format!(
        "{source}: {} examples in {} s\n",
        examples.len(),
        started.elapsed().as_secs()
    );
    eprint!("{took}");
    // Also where scripts/test.sh shows it (the test's own output is captured there).
    let log = root().join("target/examples-timing.log");
    if let Ok(mut f) = std::fs::OpenOptions::new()
        .append(true)
        .create(true)
        .open(log)
    {
        let _ = std::io::Write::write_all(&mut f, took.as_bytes());
    }
    let left = not_ignored(&scratch);
    if !left.is_empty() {
        t.failed.push(format!(
            "{source}: the examples write {left:?}, which .gitignore does not cover"
        ));
    }
}

#[test]
fn every_documented_example_runs_as_written() {
    let marks = marks();
    // POCKETBENCH_EXAMPLES=TEXT[,TEXT…] runs only the sources whose name contains a TEXT
    // (`README`, `docs/flash.md`, `--help`): for trying a document's examples while writing it.
    let only = std::env::var("POCKETBENCH_EXAMPLES").unwrap_or_default();
    let picked = |name: &str| only.split(',').any(|o| name.contains(o));
    let (sources, problems) = sources();
    let sources: Vec<_> = sources
        .into_iter()
        .filter(|(name, _)| picked(name))
        .collect();
    let all: Vec<&Example> = sources.iter().flat_map(|(_, e)| e).collect();
    let mut t = Tally::default();
    t.failed.extend(problems.into_iter().filter(|p| picked(p)));
    if only.is_empty() {
        for name in marks.by.keys() {
            if !all.iter().any(|e| &e.command == name) {
                t.failed
                    .push(format!("tests/examples.toml: no example is {name:?}"));
            }
        }
        for first in marks.output.keys() {
            if !all
                .iter()
                .any(|e| e.shown.as_ref().is_some_and(|s| s.first() == first))
            {
                t.failed.push(format!(
                    "tests/examples.toml: no output shown starts {first:?}"
                ));
            }
        }
    }
    // Three sources at a time (each runs its examples in order): most of an example's time is
    // its sleeps and waits, not CPU, and the help's one chain is the longest source.
    let queue = std::sync::Mutex::new(sources.iter());
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..3)
            .map(|_| {
                s.spawn(|| {
                    let mut t = Tally::default();
                    while let Some((name, examples)) = { queue.lock().unwrap().next() } {
                        run_source(name, examples, &marks, &mut t);
                    }
                    t
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap()).collect()
    });
    for w in tallies {
        t.run += w.run;
        t.device += w.device;
        t.matched += w.matched;
        t.skipped.extend(w.skipped);
        t.stopped += w.stopped;
        t.illustrative.extend(w.illustrative);
        t.failed.extend(w.failed);
    }
    let mut kinds: BTreeMap<&str, usize> = BTreeMap::new();
    for m in marks.by.values() {
        *kinds.entry(m.kind()).or_default() += 1;
    }
    let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    eprintln!(
        "marks in tests/examples.toml: {} ({}); {} outputs marked illustrative",
        marks.by.len(),
        kinds.join(", "),
        marks.output.len()
    );
    eprintln!(
        "{} examples: {} run to their end ({} on the fake phone or board), {} run until stopped, {} not runnable here:\n  {}",
        all.len(),
        t.run,
        t.device,
        t.stopped,
        t.skipped.len(),
        t.skipped.join("\n  ")
    );
    eprintln!(
        "outputs shown: {} matched, {} not matched:\n  {}",
        t.matched,
        t.illustrative.len(),
        t.illustrative.join("\n  ")
    );
    assert!(
        t.failed.is_empty(),
        "examples that fail:\n  {}",
        t.failed.join("\n  ")
    );
}

#[test]
fn every_command_shows_examples_in_its_help() {
    let missing: Vec<String> = commands()
        .into_iter()
        .filter(|(_, c)| {
            let h = c
                .get_after_help()
                .map(|h| h.to_string())
                .unwrap_or_default();
            !h.contains("Examples:\n") || help_examples(&h).is_empty()
        })
        .map(|(p, _)| format!("pocketbench {p}"))
        .collect();
    assert!(
        missing.is_empty(),
        "no Examples: in the help of {missing:?}"
    );
}

#[test]
fn examples_are_read_as_a_user_pastes_them() {
    assert_eq!(
        help_examples(
            "Text.\n\nExamples:\n  pocketbench a --b   what it does\n  X=1 pocketbench c\n  cp a b\n\nMore."
        ),
        ["pocketbench a --b", "X=1 pocketbench c"]
    );
}

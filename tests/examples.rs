//! Every command example of README.md, docs/*.md and the `Examples:` of every command's
//! `--help` (found by walking the clap command tree) runs as written and exits 0, the way
//! ripgrep and cargo check theirs. The examples of one Markdown file run in order in one scratch
//! directory, so each finds what the ones before it wrote; the help's examples share one, in
//! the tree's order. An example that cannot run exactly as written here carries a mark in
//! tests/examples.toml (the format is in that file's header and in docs/ARCHITECTURE.md): not
//! runnable here with the reason, made shorter by flags it adds or text it replaces (each
//! replacement must match), prepared by a setup command, or expected to exit non-zero. Phones
//! and boards are the fake adb and ssh of tests/fixtures/fake-device: an x86_64 phone and a
//! board configured as `pi` in ~/.config/pocketbench/devices.toml. A mark that matches no
//! example fails too, so the marks stay true as the docs change.

mod common;

use common::fake_device::{fakes, Devices};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// One command example, where it is written.
#[derive(Clone, Debug)]
struct Example {
    /// `README.md:61` or `pocketbench run --help`.
    at: String,
    /// The command without its trailing comment or description: what marks name.
    command: String,
}

/// How the runner treats the example `example` (tests/examples.toml).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Mark {
    example: String,
    /// Not runnable here: why.
    skip: Option<String>,
    /// Flags added at the end (to shorten a long example).
    append: Option<String>,
    /// (from, to) pairs replaced in the command; each must occur in it.
    #[serde(default)]
    replace: Vec<(String, String)>,
    /// A shell command run first in the same directory.
    setup: Option<String>,
    /// The exit status the docs mean (default 0).
    status: Option<i32>,
}

#[derive(Deserialize)]
struct Marks {
    mark: Vec<Mark>,
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn marks() -> BTreeMap<String, Mark> {
    let text = std::fs::read_to_string(root().join("tests/examples.toml")).unwrap();
    let marks: Marks = toml::from_str(&text).unwrap_or_else(|e| panic!("tests/examples.toml: {e}"));
    let mut by = BTreeMap::new();
    for m in marks.mark {
        let key = m.example.clone();
        assert!(
            by.insert(key.clone(), m).is_none(),
            "tests/examples.toml: {key} marked twice"
        );
    }
    by
}

/// `line` without a trailing shell comment (a `#` after white space, outside quotes).
fn without_comment(line: &str) -> &str {
    let (mut single, mut double, mut prev_space) = (false, false, true);
    for (i, c) in line.char_indices() {
        match c {
            '\'' if !double => single = !single,
            '"' if !single => double = !double,
            '#' if !single && !double && prev_space => return line[..i].trim_end(),
            _ => {}
        }
        prev_space = c.is_whitespace();
    }
    line.trim_end()
}

/// The commands of the shell code blocks (```sh, bash, shell, console) of a Markdown file.
fn markdown(rel: &str) -> Vec<Example> {
    let text = std::fs::read_to_string(root().join(rel)).unwrap();
    let mut out = Vec::new();
    let (mut shell, mut fenced, mut pending): (bool, bool, Option<(usize, String)>) =
        (false, false, None);
    for (i, line) in text.lines().enumerate() {
        if let Some(info) = line.trim_start().strip_prefix("```") {
            if fenced {
                fenced = false;
            } else {
                fenced = true;
                let lang = info.split_whitespace().next().unwrap_or("");
                shell = matches!(lang, "sh" | "bash" | "shell" | "console");
            }
            continue;
        }
        if !fenced || !shell {
            continue;
        }
        let (start, mut joined) = pending.take().unwrap_or((i + 1, String::new()));
        joined.push_str(line.trim());
        if let Some(head) = joined.strip_suffix('\\') {
            pending = Some((start, format!("{head} ")));
            continue;
        }
        let command = without_comment(&joined).to_string();
        if !command.is_empty() {
            out.push(Example {
                at: format!("{rel}:{start}"),
                command,
            });
        }
    }
    out
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
            });
        }
    }
    out
}

/// The sources: the help (one scratch directory), then README.md and docs/*.md.
fn sources() -> Vec<(String, Vec<Example>)> {
    let mut files: Vec<String> = std::fs::read_dir(root().join("docs"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".md"))
        .map(|n| format!("docs/{n}"))
        .collect();
    files.sort();
    files.insert(0, "README.md".into());
    let mut out = vec![("--help".to_string(), help())];
    out.extend(files.into_iter().map(|f| {
        let e = markdown(&f);
        (f, e)
    }));
    out
}

/// A scratch directory as a user's: `docs/` of the checkout beside what the examples write,
/// an x86_64 phone on the fake adb and the board `pi` in ~/.config/pocketbench/devices.toml.
struct Scratch {
    devices: Devices,
    bin: PathBuf,
    /// A results server for `{server}` and `{token}`: started when first named.
    server: std::cell::RefCell<Option<(std::process::Child, String, String)>>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if let Some((mut child, _, _)) = self.server.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

impl Scratch {
    fn new() -> Scratch {
        let devices = Devices::new();
        // The phone the docs name (rooted: `--root require` works on it), and two boards.
        let phone = devices.x86_phone("R58M1234");
        let props = std::fs::read_to_string(phone.join("props")).unwrap();
        std::fs::write(phone.join("props"), format!("{props}fake.su=yes\n")).unwrap();
        devices.board("raspberrypi");
        devices.board("raspberrypi.local");
        let config = devices.path("home/.config/pocketbench");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(
            config.join("devices.toml"),
            "[ssh.pi]\nhost = \"pi@raspberrypi\"\n",
        )
        .unwrap();
        std::os::unix::fs::symlink(root().join("docs"), devices.path("host/docs")).unwrap();
        let bin = devices.path("bin");
        std::fs::create_dir_all(&bin).unwrap();
        std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_pocketbench"), bin.join("pocketbench"))
            .unwrap();
        Scratch {
            devices,
            bin,
            server: Default::default(),
        }
    }

    /// `command` with `{server}` and `{token}` filled in: a `pocketbench serve` of this
    /// directory (any free port) and a token of it.
    fn fill(&self, command: &str) -> String {
        if !command.contains("{server}") && !command.contains("{token}") {
            return command.to_string();
        }
        let mut server = self.server.borrow_mut();
        let (_, url, token) = server.get_or_insert_with(|| {
            use std::io::BufRead;
            let db = self.devices.path("server.db");
            let db = db.to_str().unwrap();
            let out = Command::new(env!("CARGO_BIN_EXE_pocketbench"))
                .args(["serve", "token", "add", "examples", "--db", db])
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&out.stdout);
            let token = text.split_whitespace().find(|w| w.starts_with("pbt_"));
            let token = token
                .unwrap_or_else(|| panic!("no token in {text}"))
                .to_string();
            let mut child = Command::new(env!("CARGO_BIN_EXE_pocketbench"))
                .args([
                    "serve",
                    "--db",
                    db,
                    "--listen",
                    "127.0.0.1:0",
                    "--workers",
                    "2",
                ])
                .stdin(Stdio::null())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .unwrap();
            let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
            let url = loop {
                let line = lines.next().expect("serve ended before listening").unwrap();
                if let Some(rest) = line.strip_prefix("listening on ") {
                    break rest.split_whitespace().next().unwrap().to_string();
                }
            };
            std::thread::spawn(move || for _ in lines {});
            (child, url, token)
        });
        command.replace("{server}", url).replace("{token}", token)
    }

    /// Run `script` with sh in the scratch directory; (exit status, stderr's tail).
    fn sh(&self, script: &str) -> (i32, String) {
        let path = format!(
            "{}:{}:{}",
            self.bin.display(),
            fakes().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let out = Command::new("timeout")
            .args(["600", "sh", "-c", script])
            .current_dir(self.devices.path("host"))
            .env("PATH", path)
            .env("HOME", self.devices.path("home"))
            .env("FAKE_DEVICE_ROOT", self.devices.root.path())
            .env("CI", "true")
            // As in the checkout: the JVM driver that scripts/test.sh builds with Maven.
            .env(
                "POCKETBENCH_JVM_DRIVER",
                root().join("drivers/jvm/target/pocketbench-jvm.jar"),
            )
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("ANDROID_SERIAL")
            .env_remove("POCKETBENCH_TOKEN")
            .env_remove("POCKETBENCH_DEVICES")
            .env_remove("POCKETBENCH_DEVICE_BINARIES")
            .env_remove("POCKETBENCH_SYSFS_ROOT")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        let tail: Vec<&str> = err.lines().rev().take(3).collect();
        (
            out.status.code().unwrap_or(-1),
            tail.into_iter().rev().collect::<Vec<_>>().join(" | "),
        )
    }
}

/// The command as run under `mark`.
fn as_run(e: &Example, mark: Option<&Mark>) -> Result<String, String> {
    let mut c = e.command.clone();
    let Some(m) = mark else { return Ok(c) };
    for (from, to) in &m.replace {
        if !c.contains(from.as_str()) {
            return Err(format!(
                "its mark replaces {from:?}, which it does not contain"
            ));
        }
        c = c.replace(from.as_str(), to);
    }
    if let Some(a) = &m.append {
        c = format!("{c} {a}");
    }
    Ok(c)
}

#[derive(Default)]
struct Tally {
    run: usize,
    device: usize,
    skipped: Vec<String>,
    failed: Vec<String>,
}

/// What the examples left in the scratch directory that the checkout's .gitignore would not
/// ignore, were they run in the checkout's root (as most are).
fn not_ignored(scratch: &Scratch) -> Vec<String> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(scratch.devices.path("host")).unwrap() {
        let entry = entry.unwrap();
        let mut name = entry.file_name().to_string_lossy().into_owned();
        if name == "docs" {
            continue;
        }
        if entry.path().is_dir() {
            name.push('/');
        }
        let ignored = Command::new("git")
            .args(["check-ignore", "--no-index", "-q", &name])
            .current_dir(root())
            .status()
            .unwrap();
        if !ignored.success() {
            out.push(name);
        }
    }
    out.sort();
    out
}

fn run_source(source: &str, examples: &[Example], marks: &BTreeMap<String, Mark>, t: &mut Tally) {
    let scratch = Scratch::new();
    for e in examples {
        let mark = marks.get(&e.command);
        if let Some(why) = mark.and_then(|m| m.skip.as_deref()) {
            t.skipped.push(format!("{}: {}  — {why}", e.at, e.command));
            continue;
        }
        let command = match as_run(e, mark) {
            Ok(c) => c,
            Err(why) => {
                t.failed.push(format!("{}: {}: {why}", e.at, e.command));
                continue;
            }
        };
        if let Some(setup) = mark.and_then(|m| m.setup.as_deref()) {
            let (code, err) = scratch.sh(setup);
            if code != 0 {
                t.failed
                    .push(format!("{}: setup {setup:?}: exit {code}: {err}", e.at));
                continue;
            }
        }
        let want = mark.and_then(|m| m.status).unwrap_or(0);
        let command = scratch.fill(&command);
        let t0 = std::time::Instant::now();
        let (code, err) = scratch.sh(&command);
        let secs = t0.elapsed().as_secs();
        if secs >= 10 {
            eprintln!("{}: {command}: {secs} s (a mark can shorten it)", e.at);
        }
        t.run += 1;
        if command.contains("pocketbench device ") {
            t.device += 1;
        }
        if code != want {
            let failed = format!("{}: {command}: exit {code} (expected {want}): {err}", e.at);
            eprintln!("FAILED {failed}");
            t.failed.push(failed);
        }
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
    // POCKETBENCH_EXAMPLES=TEXT runs only the sources whose name contains TEXT (`README`,
    // `docs/flash.md`, `--help`): for trying a document's examples while writing it.
    let only = std::env::var("POCKETBENCH_EXAMPLES").unwrap_or_default();
    let sources: Vec<_> = sources()
        .into_iter()
        .filter(|(name, _)| name.contains(&only))
        .collect();
    let all: Vec<&Example> = sources.iter().flat_map(|(_, e)| e).collect();
    let mut t = Tally::default();
    for name in marks.keys() {
        if only.is_empty() && !all.iter().any(|e| &e.command == name) {
            t.failed
                .push(format!("tests/examples.toml: no example is {name:?}"));
        }
    }
    // Two sources at a time (each runs its examples in order).
    let queue = std::sync::Mutex::new(sources.iter());
    let tallies: Vec<Tally> = std::thread::scope(|s| {
        let workers: Vec<_> = (0..2)
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
        t.skipped.extend(w.skipped);
        t.failed.extend(w.failed);
    }
    eprintln!(
        "{} examples: {} run ({} on the fake phone or board), {} not runnable here:\n  {}",
        all.len(),
        t.run,
        t.device,
        t.skipped.len(),
        t.skipped.join("\n  ")
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
        without_comment("pocketbench run   # a comment"),
        "pocketbench run"
    );
    assert_eq!(
        without_comment("a '# not' \"#\" b#c"),
        "a '# not' \"#\" b#c"
    );
    assert_eq!(
        help_examples(
            "Text.\n\nExamples:\n  pocketbench a --b   what it does\n  X=1 pocketbench c\n  cp a b\n\nMore."
        ),
        ["pocketbench a --b", "X=1 pocketbench c"]
    );
}

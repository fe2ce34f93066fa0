//! The marks of tests/examples.toml (its header says what each kind means): read, checked to
//! be one kind each, and what each says about running its example.

use super::root;
use serde::Deserialize;
use std::collections::BTreeMap;

/// How the runner treats the example `example` (tests/examples.toml): one kind of mark.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mark {
    example: String,
    /// Not run: needs what a CI machine lacks (a phone's or board's own shell, a power
    /// meter's file, the lab's hosts); why.
    hardware: Option<String>,
    /// Not run: builds the tool itself (the suite's own build is this step); why.
    builds: Option<String>,
    /// Runs as written in the checkout's root rather than a scratch folder (it builds or runs
    /// what the checkout builds: `cargo build --release`, the ARM binaries under qemu); why.
    pub checkout: Option<String>,
    /// (checkout) Files of the checkout it needs, built before this test by scripts/test.sh:
    /// when one is missing the example is not run (a failure when POCKETBENCH_REQUIRE_BUILDS
    /// is set, as scripts/test.sh sets it).
    #[serde(default)]
    needs: Vec<String>,
    /// Run with a time cap: it runs until stopped (tests/examples/stopped.rs); why, and how
    /// the docs stop it.
    pub until_stopped: Option<String>,
    /// (until_stopped) Text its output (or `watch`) shows once it is ready.
    pub ready: Option<String>,
    /// (until_stopped) The file the example itself writes its output to.
    pub watch: Option<String>,
    /// (until_stopped) The example of the document before which it is stopped (default: the
    /// end of the document).
    pub stop_before: Option<String>,
    /// (until_stopped) Text its output (or `watch`) must show before it is stopped.
    pub stop_when: Option<String>,
    /// (until_stopped) How the docs stop it: "INT" (Ctrl-C, the default) or "TERM" (`kill`).
    pub signal: Option<String>,
    /// (until_stopped) The address it listens on (held while it runs).
    pub listens: Option<String>,
    /// The exit status the docs mean (default 0): the example shows a refusal.
    pub status: Option<i32>,
    /// (status) The cargo feature whose absence the refusal shows: a build with it does not
    /// run the example.
    without_feature: Option<String>,
    /// Runs as written in a build with this cargo feature (scripts/test.sh builds every
    /// engine); a build without it does not run the example.
    with_feature: Option<String>,
}

/// Whether this build has the cargo feature `name` (those a refusal in the docs names).
fn built_with(name: &str) -> bool {
    match name {
        "rocksdb" => cfg!(feature = "rocksdb"),
        "leveldb" => cfg!(feature = "leveldb"),
        "berkeleydb" => cfg!(feature = "berkeleydb"),
        other => {
            panic!("tests/examples.toml: without_feature {other:?}: not a feature this test knows")
        }
    }
}

impl Mark {
    /// Why it is not run, with its kind.
    pub fn not_run(&self) -> Option<(&'static str, String)> {
        let why = |kind, w: &str| (kind, w.to_string());
        (self.hardware.as_deref().map(|w| why("hardware", w)))
            .or(self.builds.as_deref().map(|w| why("builds", w)))
            .or(self
                .without_feature
                .as_deref()
                .filter(|f| built_with(f))
                .map(|_| why("refusal", "a build with the feature whose absence it shows")))
            .or(self
                .with_feature
                .as_deref()
                .filter(|f| !built_with(f))
                .map(|_| {
                    why(
                        "feature",
                        "needs a build with the feature (scripts/test.sh builds every engine)",
                    )
                }))
            .or(self.missing().filter(|_| !require_builds()).map(|p| {
                (
                    "checkout",
                    format!("needs {p}, which scripts/test.sh builds before this test"),
                )
            }))
    }

    /// (checkout) The first file it needs that the checkout does not have.
    pub fn missing(&self) -> Option<&str> {
        self.needs
            .iter()
            .find(|p| !root().join(p).exists())
            .map(String::as_str)
    }

    /// Its kind, for the counts.
    pub fn kind(&self) -> &'static str {
        match (self.not_run(), &self.until_stopped, self.status) {
            (_, _, Some(_)) => "refusal",
            _ if self.with_feature.is_some() => "feature",
            _ if self.checkout.is_some() => "checkout",
            (Some((k, _)), _, _) => k,
            (None, Some(_), _) => "until stopped",
            _ => "none",
        }
    }
}

/// Whether a missing build an example needs fails the test (scripts/test.sh builds them all
/// first and sets POCKETBENCH_REQUIRE_BUILDS) rather than leaving the example out.
pub fn require_builds() -> bool {
    std::env::var_os("POCKETBENCH_REQUIRE_BUILDS").is_some_and(|v| !v.is_empty())
}

/// Output shown that is not matched (tests/examples.toml): the shown lines starting `shows`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct OutputMark {
    shows: String,
    /// Why what the example prints here cannot be what the document shows.
    illustrative: String,
}

#[derive(Deserialize)]
struct Marks {
    mark: Vec<Mark>,
    #[serde(default)]
    output: Vec<OutputMark>,
}

/// The marks of tests/examples.toml: by command, and the illustrative outputs by first line.
pub struct Marked {
    pub by: BTreeMap<String, Mark>,
    pub output: BTreeMap<String, String>,
}

pub fn marks() -> Marked {
    let text = std::fs::read_to_string(root().join("tests/examples.toml")).unwrap();
    let marks: Marks = toml::from_str(&text).unwrap_or_else(|e| panic!("tests/examples.toml: {e}"));
    let mut by = BTreeMap::new();
    for m in marks.mark {
        let key = m.example.clone();
        let kinds = [
            m.hardware.is_some(),
            m.builds.is_some(),
            m.checkout.is_some(),
            m.until_stopped.is_some(),
            m.status.is_some(),
            m.with_feature.is_some(),
        ];
        let stopping = [
            &m.ready,
            &m.watch,
            &m.stop_before,
            &m.stop_when,
            &m.signal,
            &m.listens,
        ];
        assert!(
            kinds.iter().filter(|k| **k).count() == 1
                && (m.until_stopped.is_some() || stopping.iter().all(|f| f.is_none()))
                && (m.status.is_some() || m.without_feature.is_none())
                && (m.checkout.is_some() || m.needs.is_empty()),
            "tests/examples.toml: {key}: a mark is one of hardware, builds, \
             checkout (with its needs), until_stopped (with its ready, watch, stop_before, stop_when, signal, listens) or \
             status (with its without_feature) or with_feature"
        );
        assert!(
            by.insert(key.clone(), m).is_none(),
            "tests/examples.toml: {key} marked twice"
        );
    }
    let mut output = BTreeMap::new();
    for o in marks.output {
        let key = o.shows.trim().to_string();
        assert!(
            output.insert(key.clone(), o.illustrative).is_none(),
            "tests/examples.toml: output {key:?} marked twice"
        );
    }
    Marked { by, output }
}

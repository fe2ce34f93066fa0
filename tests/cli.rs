//! The command line itself: `engines`, `--help` with examples for every command, and `-V` /
//! `--version` (the long one names the commit, features, engines and SQLite of the build).

mod common;

use common::{text, Sandbox};
use serde_json::Value;

#[test]
fn engines_json_lists_sqlite_with_its_options() {
    let sb = Sandbox::new();
    let list = sb.pb(["engines", "--json"]).expect_ok().json();
    let engines = list.as_array().expect("a list of engines");
    let named = |name: &str| -> &Value {
        engines
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("no engine {name} in {list:#}"))
    };
    let sqlite = named("sqlite");
    assert_eq!(sqlite["sql"], true);
    assert!(text(sqlite, "/version").starts_with('3'), "{sqlite}");
    let options = sqlite["options"].as_array().expect("options");
    let option = |name: &str| -> &Value {
        options
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("sqlite has no option {name}: {options:?}"))
    };
    for name in [
        "journal_mode",
        "synchronous",
        "page_size",
        "cache_size",
        "preset",
    ] {
        assert!(
            !text(option(name), "/help").is_empty(),
            "{name} has no help"
        );
    }
    assert!(text(option("journal_mode"), "/values").contains("wal"));
    assert!(text(option("synchronous"), "/values").contains("off"));
    assert_eq!(text(option("synchronous"), "/default"), "full");
    // The null engine is listed too, with no options.
    assert_eq!(named("null")["options"].as_array().map(Vec::len), Some(0));
}

#[test]
fn every_command_has_help_with_examples() {
    let sb = Sandbox::new();
    let commands: [&[&str]; 9] = [
        &[],
        &["run"],
        &["trace"],
        &["trace", "gen"],
        &["trace", "show"],
        &["results"],
        &["results", "list"],
        &["results", "show"],
        &["engines"],
    ];
    for command in commands {
        let mut args = command.to_vec();
        args.push("--help");
        let out = sb.pb(&args).expect_ok();
        assert!(
            out.stdout.contains("Example"),
            "pocketbench {} has no example:\n{}",
            args.join(" "),
            out.stdout
        );
    }
}

/// Every flag and argument of every command, hidden ones aside, says what it is for in `--help`.
#[test]
fn every_flag_has_help_text() {
    use clap::CommandFactory;
    fn walk(cmd: &clap::Command, path: &str, missing: &mut Vec<String>) {
        for a in cmd.get_arguments() {
            let id = a.get_id().as_str();
            if a.is_hide_set() || id == "help" || id == "version" {
                continue;
            }
            if a.get_help().is_none() {
                missing.push(format!("{path} {id}"));
            }
        }
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            walk(sub, &format!("{path} {}", sub.get_name()), missing);
        }
    }
    let mut missing = Vec::new();
    walk(
        &pocketbench::commands::cli::Cli::command(),
        "pocketbench",
        &mut missing,
    );
    assert!(missing.is_empty(), "flags without help: {missing:#?}");
}

/// `diagnose` sets each governor it compares itself, so it offers `--governors` and no
/// `--governor` (which could only be refused).
#[test]
fn diagnose_offers_no_governor_flag() {
    use clap::CommandFactory;
    let cli = pocketbench::commands::cli::Cli::command();
    let diagnose = cli.find_subcommand("diagnose").expect("diagnose");
    let longs: Vec<&str> = diagnose
        .get_arguments()
        .filter_map(|a| a.get_long())
        .collect();
    assert!(longs.contains(&"governors"), "{longs:?}");
    assert!(!longs.contains(&"governor"), "{longs:?}");
    let run = cli.find_subcommand("run").expect("run");
    assert!(run
        .get_arguments()
        .any(|a| a.get_long() == Some("governor")));
}

/// `completions` prints a script each shell accepts; bash, run for real, registers it.
#[test]
fn completions_for_bash_zsh_and_fish() {
    let sb = Sandbox::new();
    let bash = sb.pb(["completions", "bash"]).expect_ok().stdout;
    assert!(bash.contains("_pocketbench()"), "{bash}");
    // Subcommands and the closed value sets (ValueEnum) are offered.
    assert!(bash.contains("storage") && bash.contains("hgrm"), "{bash}");
    let script = sb.write("pb.bash", &bash);
    let out = std::process::Command::new("bash")
        .arg("-c")
        .arg(format!(
            "source {} && complete -p pocketbench",
            script.display()
        ))
        .output()
        .expect("bash");
    let registered = String::from_utf8_lossy(&out.stdout);
    assert!(registered.contains("_pocketbench"), "{registered} {out:?}");
    let zsh = sb.pb(["completions", "zsh"]).expect_ok().stdout;
    assert!(zsh.starts_with("#compdef pocketbench"), "{zsh}");
    let fish = sb.pb(["completions", "fish"]).expect_ok().stdout;
    assert!(fish.contains("complete -c pocketbench"), "{fish}");
    sb.expect_refused(&[("completions tcsh", "invalid value 'tcsh'")]);
}

#[test]
fn short_version_is_one_line_and_the_long_one_names_the_build() {
    let sb = Sandbox::new();
    let short = sb.pb(["-V"]).expect_ok();
    assert_eq!(
        short.stdout,
        format!("pocketbench {}\n", env!("CARGO_PKG_VERSION"))
    );
    let long = sb.pb(["--version"]).expect_ok().stdout;
    let commit = std::process::Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map_or("unknown".to_string(), |o| {
            String::from_utf8_lossy(&o.stdout).trim().to_string()
        });
    for line in [
        format!("pocketbench {}", env!("CARGO_PKG_VERSION")),
        format!("commit: {commit}"),
        "engines: sqlite, null".to_string(),
        "sqlite: 3.".to_string(),
        "features: ".to_string(),
    ] {
        assert!(long.contains(&line), "{line:?} in {long}");
    }
}

//! The command line itself: `engines`, and `--help` with examples for every command.

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

//! Self re-execution through a runner: with `POCKETBENCH_RUNNER` set, the replay process is
//! started through that wrapper (as cargo's target runners; qemu for ARM builds on this host),
//! the result records it, and a runner that does not exist is refused before anything runs.

mod common;

use common::{arg, pb_with, words, Sandbox};
use std::os::unix::fs::PermissionsExt;

#[test]
fn the_replay_runs_under_the_runner_and_the_result_says_so() {
    let sb = Sandbox::new();
    let marker = sb.path("runner-was-used");
    let runner = sb.write(
        "runner.sh",
        format!(
            "#!/bin/sh\necho \"$@\" > {}\nexec \"$@\"\n",
            marker.display()
        ),
    );
    std::fs::set_permissions(&runner, std::fs::Permissions::from_mode(0o755)).unwrap();
    let results = sb.results();
    let mut args = words("run --records 10 --ops 20 --delay zero --no-overhead --json");
    args.extend(["--results", arg(&results)]);
    let out = pb_with(&args, |c| {
        c.current_dir(sb.path(""))
            .env("POCKETBENCH_RUNNER", &runner);
    })
    .expect_ok();
    let s = out.json();
    assert_eq!(s["phases"]["runner"], arg(&runner));
    let used = std::fs::read_to_string(&marker).unwrap();
    assert!(used.contains(" __replay "), "{used}");

    let out = pb_with(&args, |c| {
        c.current_dir(sb.path(""))
            .env("POCKETBENCH_RUNNER", "no-such-emulator --flag");
    });
    assert_eq!(out.code, Some(2), "{}", out.stderr);
    assert!(out
        .stderr
        .contains("POCKETBENCH_RUNNER=\"no-such-emulator --flag\": no such program"));
    assert_eq!(
        common::stored_runs(&sb.results()),
        1,
        "nothing stored for the refused run"
    );
}

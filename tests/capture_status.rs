//! `capture` ends as its program did, as a shell reports it: a program that exits 3 makes
//! `capture` exit 3, one killed by SIGSEGV makes it exit 139 (128 + 11); the log is written
//! either way (here empty: the programs open no database), and importing that empty log says
//! it is empty rather than "nothing importable found".

mod common;

use common::Sandbox;

#[test]
fn capture_exits_with_its_programs_status_and_an_empty_log_is_called_empty() {
    let sb = Sandbox::new();
    for (script, code, said) in [
        ("exit 3", 3, "the program exited with status 3"),
        ("kill -SEGV $$", 139, "signal 11"),
    ] {
        let out = sb.pb(["capture", "-o", "app.jsonl", "--", "sh", "-c", script]);
        assert_eq!(out.code, Some(code), "{script}: {}", out.stderr);
        let all = format!("{}{}", out.stdout, out.stderr);
        assert!(all.contains(said), "{script}: {all}");
        assert_eq!(std::fs::read(sb.path("app.jsonl")).unwrap(), b"");
    }
    let out = sb
        .pb(["trace", "import", "app.jsonl", "-o", "app.pbt"])
        .expect_code(2);
    assert!(
        out.stderr.contains("app.jsonl: the log is empty"),
        "{}",
        out.stderr
    );
    assert!(!sb.path("app.pbt").exists());
}

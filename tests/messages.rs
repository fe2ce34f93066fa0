//! Messages that blame the right thing, as a user pasting the docs' examples meets them: a
//! missing file given to `results import` is named as that file (not `--results`), a missing
//! `storage --dir` is said not to exist, `device run NAME` with no devices file says there is
//! no ssh target NAME either and where targets are configured, and `serve --db postgres://…`
//! to a host that does not resolve gives the cause. Each is one line and exit status 2.

mod common;

use common::fake_device::Devices;
use common::Sandbox;

#[test]
fn each_message_names_what_is_wrong() {
    let sb = Sandbox::new();
    sb.expect_refused(&[
        (
            "results import nofile.db",
            "results import: nofile.db: no such file",
        ),
        ("storage --dir nothere", "--dir nothere: no such directory"),
    ]);
    std::fs::write(sb.path("afile"), "").unwrap();
    let out = sb.pb(["storage", "--dir", "afile"]).expect_code(2);
    assert!(
        out.stderr.contains("--dir afile: not a directory"),
        "{}",
        out.stderr
    );
}

#[cfg(feature = "server")]
#[test]
fn an_unresolvable_database_host_is_named_with_the_cause() {
    let sb = Sandbox::new();
    // `.invalid` never resolves (RFC 2606).
    let out = sb
        .pb(["serve", "--db", "postgres://pb@db.invalid:5432/pocketbench"])
        .expect_code(2);
    assert_eq!(out.stderr_lines().len(), 1, "{}", out.stderr);
    let line = out.stderr_lines()[0];
    assert!(
        line.contains("cannot connect: error connecting to server: "),
        "{line}"
    );
    // The cause follows the driver's own words.
    assert!(
        line.len() > line.find("error connecting to server: ").unwrap() + 30,
        "{line}"
    );
}

#[test]
fn a_target_that_is_neither_configured_nor_attached_says_where_targets_come_from() {
    let d = Devices::new();
    let out = d
        .pb(&["device", "run", "pi", "--", "storage"])
        .expect_code(2);
    assert_eq!(out.stderr_lines().len(), 1, "{}", out.stderr);
    let config = d.path("home/.config/pocketbench/devices.toml");
    assert!(
        out.stderr.contains(&format!(
            "device \"pi\": neither an ssh target of {} (there is none there: docs/device.md says how to configure one) nor an attached adb device: adb device \"pi\" is not attached",
            config.display()
        )),
        "{}",
        out.stderr
    );
}

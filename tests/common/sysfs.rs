//! Running the real binary against a fake sysfs tree: `--sysfs-root` set, the environment's
//! root removed, a short paced run, a private results store.

use super::{arg, pb_with, Outcome};
use pocketbench::platform::fake_sysfs::Tree;
use serde_json::Value;
use std::path::{Path, PathBuf};

pub fn pb(root: &Path, args: &[&str]) -> Outcome {
    let all = ["--sysfs-root", arg(root)]
        .into_iter()
        .chain(args.iter().copied());
    pb_with(all, |c| {
        c.env_remove("POCKETBENCH_SYSFS_ROOT");
    })
}

pub fn json(out: Outcome) -> Value {
    out.expect_ok().json()
}

/// `t`, and a private directory with the path of a results store in it.
pub fn setup(t: Tree) -> (Tree, tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("r.db");
    (t, dir, db)
}

/// A short paced run (see [`run_args`]) against `t`, storing into `db`, which must succeed;
/// its JSON summary.
pub fn run(t: &Tree, db: &Path, extra: &[&str]) -> Value {
    json(pb(t.root(), &run_args(arg(db), extra)))
}

/// A short, paced run storing into `dir`.
pub fn run_args<'a>(db: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut v = vec![
        "run",
        "--ops",
        "30",
        "--records",
        "50",
        "--delay",
        "fixed:1ms",
        "--no-overhead",
        "--json",
        "--results",
        db,
    ];
    v.extend_from_slice(extra);
    v
}

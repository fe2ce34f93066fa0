//! Headless Chromium for the page tests (the report, the results server's dashboard): find it,
//! run it with a fresh profile and nothing that reaches the network, read a PNG's size.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Chromium, or the reason the test cannot run without it.
pub fn require_chromium() -> PathBuf {
    chromium().unwrap_or_else(|| {
        panic!(
            "Chromium is not installed: scripts/test.sh installs the Debian package chromium \
             (or set POCKETBENCH_CHROMIUM to a Chromium binary)"
        )
    })
}

pub fn chromium() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("POCKETBENCH_CHROMIUM") {
        return Some(PathBuf::from(p));
    }
    ["chromium", "chromium-browser", "google-chrome"]
        .iter()
        .find_map(|name| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|d| d.join(name))
                    .find(|p| p.is_file())
            })
        })
}

/// Headless Chromium with a fresh profile and nothing that reaches the network.
pub fn browser(exe: &Path, profile: &Path) -> Command {
    let mut c = Command::new(exe);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--enable-logging=stderr",
        "--v=0",
    ])
    .arg(format!("--user-data-dir={}", profile.display()));
    c
}

/// Run the browser with `args`, which must succeed.
pub fn browse(exe: &Path, profile: &Path, args: &[&str]) -> Output {
    let out = browser(exe, profile).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Width and height from a PNG's IHDR chunk.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    assert_eq!(&bytes[1..4], b"PNG");
    let w = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
    let h = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
    (w, h)
}

//! The scratch directory one source's examples run in, as a user's: `docs/` of the checkout
//! beside what the examples write, the fake phone and boards, how an example is run there (to
//! its end, or started to run until stopped), and what the examples left that .gitignore would
//! not cover.

use super::common::fake_device::{fakes, Devices};
use super::root;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A scratch directory as a user's: `docs/` of the checkout beside what the examples write,
/// an x86_64 phone on the fake adb and the board `pi` in ~/.config/pocketbench/devices.toml.
pub struct Scratch {
    devices: Devices,
    bin: PathBuf,
}

impl Scratch {
    pub fn new() -> Scratch {
        let devices = Devices::new();
        // The phone the docs name (rooted: `--root require` works on it), running the notes
        // app of docs/import.md (debuggable; started, it logs docs/examples/notes.logcat), and
        // two boards.
        let app_log = std::fs::read_to_string(root().join("docs/examples/notes.logcat")).unwrap();
        devices.app_phone(
            "R58M1234",
            &app_log,
            &format!(
                "fake.su=yes\nfake.debuggable.{}=yes\n",
                super::common::fake_device::APP
            ),
        );
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
        Scratch { devices, bin }
    }

    /// Run `script` with sh in `dir` (the scratch directory when `None`), in quick mode (`POCKETBENCH_QUICK`: the
    /// commands shorten themselves and say so), in a process group of its own whose leftovers
    /// (a `… &` job of the example) are killed when the shell ends; (exit status, stderr's
    /// tail, stdout, stderr).
    pub fn sh_in(&self, dir: Option<&Path>, script: &str) -> (i32, String, String, String) {
        // Files, not pipes: a background job that keeps the shell's output open must not keep
        // the runner waiting for the end of that output.
        let out_file = tempfile::tempfile().unwrap();
        let err_file = tempfile::tempfile().unwrap();
        let mut shell = self.shell(&["timeout", "600", "sh", "-c", script]);
        if let Some(d) = dir {
            shell.current_dir(d);
        }
        let mut child = shell
            .stdout(out_file.try_clone().unwrap())
            .stderr(err_file.try_clone().unwrap())
            .spawn()
            .unwrap();
        let status = child.wait().unwrap();
        // SAFETY: signalling the process group this call created (its id is the child's pid).
        unsafe { libc::killpg(child.id() as libc::pid_t, libc::SIGKILL) };
        let read = |mut f: std::fs::File| {
            use std::io::{Read, Seek};
            let mut text = Vec::new();
            f.seek(std::io::SeekFrom::Start(0)).unwrap();
            f.read_to_end(&mut text).unwrap();
            String::from_utf8_lossy(&text).into_owned()
        };
        let (stdout, err) = (read(out_file), read(err_file));
        let tail: Vec<&str> = err.lines().rev().take(3).collect();
        (
            status.code().unwrap_or(-1),
            tail.into_iter().rev().collect::<Vec<_>>().join(" | "),
            stdout,
            err,
        )
    }

    /// Start `script` with sh as [`Scratch::sh`] does, to run until stopped, its output in the
    /// files `out` and `err` (tests/examples/stopped.rs).
    pub fn start(&self, script: &str, out: &Path, err: &Path) -> std::process::Child {
        self.shell(&["sh", "-c", script])
            .stdout(std::fs::File::create(out).unwrap())
            .stderr(std::fs::File::create(err).unwrap())
            .spawn()
            .unwrap()
    }

    /// Where until-stopped examples keep their output.
    pub fn files(&self) -> PathBuf {
        let p = self.devices.path("running");
        std::fs::create_dir_all(&p).unwrap();
        p
    }

    /// The scratch directory the examples run in.
    pub fn dir(&self) -> PathBuf {
        self.devices.path("host")
    }

    /// `argv` in the scratch directory as a user's shell, in quick mode, in a process group of
    /// its own, with no input.
    fn shell(&self, argv: &[&str]) -> Command {
        use std::os::unix::process::CommandExt;
        let path = format!(
            "{}:{}:{}",
            self.bin.display(),
            fakes().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        let mut c = Command::new(argv[0]);
        c.args(&argv[1..])
            .current_dir(self.devices.path("host"))
            .env("PATH", path)
            .env("HOME", self.devices.path("home"))
            .env("FAKE_DEVICE_ROOT", self.devices.root.path())
            // HOME is the scratch's own; cargo and rustup stay the user's (the checkout examples
            // build with them).
            .env("CARGO_HOME", tool_home("CARGO_HOME", ".cargo"))
            .env("RUSTUP_HOME", tool_home("RUSTUP_HOME", ".rustup"))
            .env("CI", "true")
            .env("POCKETBENCH_QUICK", "1")
            // As in the checkout: the JVM driver that scripts/test.sh builds with Maven.
            .env(
                "POCKETBENCH_JVM_DRIVER",
                root().join("drivers/jvm/target/pocketbench-jvm.jar"),
            )
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("XDG_CACHE_HOME")
            .env_remove("ANDROID_SERIAL")
            .env_remove("POCKETBENCH_TOKEN")
            .env_remove("POCKETBENCH_DEVICES")
            .env_remove("POCKETBENCH_DEVICE_BINARIES")
            .env_remove("POCKETBENCH_SYSFS_ROOT")
            .stdin(Stdio::null())
            .process_group(0);
        // What cargo sets for this test process and a user's terminal does not have: a build
        // script that watches one (ring's watches CARGO_MANIFEST_DIR and OUT_DIR) would make
        // the checkout's builds, made without it, look stale to an example's cargo, which would
        // build them again.
        for (k, _) in std::env::vars_os() {
            let k = k.to_string_lossy();
            let set_by_cargo = k == "CARGO"
                || k.starts_with("CARGO_PKG_")
                || k.starts_with("CARGO_BIN_")
                || matches!(
                    &*k,
                    "OUT_DIR"
                        | "CARGO_MANIFEST_DIR"
                        | "CARGO_MANIFEST_PATH"
                        | "CARGO_MANIFEST_LINKS"
                        | "CARGO_CRATE_NAME"
                        | "CARGO_PRIMARY_PACKAGE"
                        | "CARGO_TARGET_TMPDIR"
                        | "CARGO_RUSTC_CURRENT_DIR"
                );
            if set_by_cargo {
                c.env_remove(&*k);
            }
        }
        // As a terminal's job: Ctrl-C and Ctrl-\ at their defaults, even when this test was
        // started where they are ignored (a background job of a script, which `serve` and
        // the shells inherit, so the docs' Ctrl-C would not stop them).
        // SAFETY: signal(2) is async-signal-safe, as pre_exec requires.
        unsafe {
            c.pre_exec(|| {
                libc::signal(libc::SIGINT, libc::SIG_DFL);
                libc::signal(libc::SIGQUIT, libc::SIG_DFL);
                Ok(())
            });
        }
        c
    }
}

/// Where the toolchain keeps its state: `var` when set, else `~/dir` of the real home.
fn tool_home(var: &str, dir: &str) -> PathBuf {
    std::env::var_os(var)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(dir))
}

/// What the examples left in the scratch directory that the checkout's .gitignore would not
/// ignore, were they run in the checkout's root (as most are).
pub fn not_ignored(scratch: &Scratch) -> Vec<String> {
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

//! The scratch directory one source's examples run in, as a user's: `docs/` of the checkout
//! beside what the examples write, the fake phone and boards, a results server when an example
//! names one, and what the examples left that .gitignore would not cover.

use super::common::fake_device::{fakes, Devices};
use super::root;
use std::path::PathBuf;
use std::process::{Command, Stdio};

/// A scratch directory as a user's: `docs/` of the checkout beside what the examples write,
/// an x86_64 phone on the fake adb and the board `pi` in ~/.config/pocketbench/devices.toml.
pub struct Scratch {
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
        Scratch {
            devices,
            bin,
            server: Default::default(),
        }
    }

    /// `command` with `{server}` and `{token}` filled in: a `pocketbench serve` of this
    /// directory (any free port) and a token of it.
    pub fn fill(&self, command: &str) -> String {
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

    /// Run `script` with sh in the scratch directory, in quick mode (`POCKETBENCH_QUICK`: the
    /// commands shorten themselves and say so), in a process group of its own whose leftovers
    /// (a `… &` job of the example) are killed when the shell ends; (exit status, stderr's
    /// tail, stdout, stderr).
    pub fn sh(&self, script: &str) -> (i32, String, String, String) {
        use std::os::unix::process::CommandExt;
        let path = format!(
            "{}:{}:{}",
            self.bin.display(),
            fakes().display(),
            std::env::var("PATH").unwrap_or_default()
        );
        // Files, not pipes: a background job that keeps the shell's output open must not keep
        // the runner waiting for the end of that output.
        let out_file = tempfile::tempfile().unwrap();
        let err_file = tempfile::tempfile().unwrap();
        let mut child = Command::new("timeout")
            .args(["600", "sh", "-c", script])
            .current_dir(self.devices.path("host"))
            .env("PATH", path)
            .env("HOME", self.devices.path("home"))
            .env("FAKE_DEVICE_ROOT", self.devices.root.path())
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
            .stdout(out_file.try_clone().unwrap())
            .stderr(err_file.try_clone().unwrap())
            .process_group(0)
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

//! A sandbox of fake devices for the `device` tests: phones behind the fake `adb` and boards
//! behind the fake `ssh`/`scp` of `tests/fixtures/fake-device/bin/`, each a directory acting
//! as the device (see the fakes' own headers for the layout).

use super::{pb_with, Outcome};
use std::path::{Path, PathBuf};

/// The app of the `device capture` phones.
pub const APP: &str = "com.example.notes";

pub struct Devices {
    pub root: tempfile::TempDir,
}

/// The fakes' directory, first on PATH.
pub fn fakes() -> PathBuf {
    super::fixture("fake-device/bin")
}

impl Devices {
    pub fn new() -> Devices {
        let root = tempfile::Builder::new()
            .prefix("pocketbench-devices-")
            .tempdir()
            .unwrap();
        for d in ["host", "home", "adb", "ssh"] {
            std::fs::create_dir_all(root.path().join(d)).unwrap();
        }
        Devices { root }
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.path().join(rel)
    }

    /// A phone with `props` (getprop lines; `ro.product.cpu.abi` chooses the binary) whose
    /// data partition is an f2fs mount with `mount_options`.
    pub fn phone(&self, serial: &str, props: &str, mount_options: &str) -> PathBuf {
        let d = self.path(&format!("adb/{serial}"));
        let fs = d.join("fs");
        std::fs::create_dir_all(fs.join("data/local/tmp")).unwrap();
        std::fs::create_dir_all(fs.join("proc")).unwrap();
        std::fs::write(
            fs.join("proc/mounts"),
            format!(
                "/dev/root / ext4 ro 0 0\n/dev/block/dm-5 {} f2fs {mount_options} 0 0\n",
                fs.join("data").display()
            ),
        )
        .unwrap();
        std::fs::write(
            fs.join("proc/cpuinfo"),
            "processor\t: 0\nprocessor\t: 1\nHardware\t: Fake SoC\n",
        )
        .unwrap();
        std::fs::write(d.join("props"), props).unwrap();
        d
    }

    /// A Pixel-like x86_64 phone (an emulator image: the host binary runs on it).
    pub fn x86_phone(&self, serial: &str) -> PathBuf {
        self.phone(
            serial,
            "ro.product.model=Pixel 6\nro.product.manufacturer=Google\nro.build.version.release=14\nro.build.version.sdk=34\nro.product.cpu.abi=x86_64\n",
            "rw,lazytime,nosuid,nodev",
        )
    }

    /// A phone running the app `APP` (pid 4242) for `device capture`: started, it logs
    /// `fs/app-APP.logcat` (`app_log`, then one line of another process), and
    /// `databases/notes.db` holds its table `notes`. `log.tag.SQLiteTime` is `DEBUG` before the
    /// capture; `extra_props` adds getprop lines (`fake.debuggable.APP=yes`, `fake.su=…`).
    pub fn app_phone(&self, serial: &str, app_log: &str, extra_props: &str) -> PathBuf {
        let dir = self.x86_phone(serial);
        let props = std::fs::read_to_string(dir.join("props")).unwrap();
        std::fs::write(
            dir.join("props"),
            format!("{props}fake.pid.{APP}=4242\nlog.tag.SQLiteTime=DEBUG\n{extra_props}"),
        )
        .unwrap();
        let other = "05-14 10:11:12.250   999   999 V SQLiteStatements: /data/system/other.db: \"SELECT 1\"\n";
        std::fs::write(
            dir.join(format!("fs/app-{APP}.logcat")),
            format!("{app_log}{other}"),
        )
        .unwrap();
        let dbs = self.app_databases(serial);
        std::fs::create_dir_all(&dbs).unwrap();
        rusqlite::Connection::open(dbs.join("notes.db"))
            .unwrap()
            .execute_batch("CREATE TABLE notes(_id INTEGER PRIMARY KEY, title TEXT, body TEXT);")
            .unwrap();
        dir
    }

    /// `device capture --package APP --duration 0s -o OUT --json` (on the only phone), its
    /// report.
    pub fn capture(&self, out: &str) -> serde_json::Value {
        let out = self.pb(&[
            "device",
            "capture",
            "--package",
            APP,
            "--duration",
            "0s",
            "-o",
            out,
            "--json",
        ]);
        serde_json::from_str(&out.expect_ok().stdout).unwrap()
    }

    /// The records of one kind (`schema` or `statement`) of the statement log `host/FILE`.
    pub fn records(&self, file: &str, kind: &str) -> Vec<serde_json::Value> {
        std::fs::read_to_string(self.path(&format!("host/{file}")))
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter_map(|r| r.get(kind).cloned())
            .collect()
    }

    /// The `databases/` folder of [`APP`] on phone `serial`.
    pub fn app_databases(&self, serial: &str) -> PathBuf {
        self.path(&format!("adb/{serial}/fs/data/data/{APP}/databases"))
    }

    /// What the phone's fake tools recorded (setprop, logcat -c, log, am, monkey), in order.
    pub fn events(&self, serial: &str) -> Vec<String> {
        std::fs::read_to_string(self.path(&format!("adb/{serial}/events")))
            .unwrap_or_default()
            .lines()
            .map(String::from)
            .collect()
    }

    /// The phone's getprop lines, sorted (to compare before and after).
    pub fn props(&self, serial: &str) -> Vec<String> {
        let mut p: Vec<String> = std::fs::read_to_string(self.path(&format!("adb/{serial}/props")))
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        p.sort();
        p
    }

    /// A board reachable over the fake ssh as `pi@HOST`; returns its login directory.
    pub fn board(&self, host: &str) -> PathBuf {
        let home = self.path(&format!("ssh/{host}/home"));
        std::fs::create_dir_all(&home).unwrap();
        home
    }

    pub fn set(&self, rel: &str, contents: &str) {
        std::fs::write(self.path(rel), contents).unwrap();
    }

    pub fn unset(&self, rel: &str) {
        let _ = std::fs::remove_file(self.path(rel));
    }

    /// What the fake adb was asked to do, one invocation per line.
    pub fn adb_log(&self) -> String {
        std::fs::read_to_string(self.path("adb.log")).unwrap_or_default()
    }

    /// The local results store of the `host` directory.
    pub fn store(&self) -> PathBuf {
        self.path("host/pocketbench.db")
    }

    /// `pocketbench ARGS` in the host directory with the fakes first on PATH (`path: false`:
    /// with no adb, ssh or scp at all).
    pub fn pb_path(&self, args: &[&str], fakes_on_path: bool) -> Outcome {
        let system = std::env::var("PATH").unwrap_or_default();
        let path = if fakes_on_path {
            format!("{}:{system}", fakes().display())
        } else {
            // Only what the binary itself needs: no adb.
            let empty = self.path("empty-bin");
            std::fs::create_dir_all(&empty).unwrap();
            empty.display().to_string()
        };
        pb_with(args, |c| {
            c.current_dir(self.path("host"))
                .env("PATH", path)
                .env("FAKE_DEVICE_ROOT", self.root.path())
                .env("HOME", self.path("home"))
                .env_remove("ANDROID_SERIAL")
                .env_remove("POCKETBENCH_DEVICES")
                .env_remove("XDG_CONFIG_HOME")
                .env_remove("POCKETBENCH_DEVICE_BINARIES");
        })
    }

    pub fn pb(&self, args: &[&str]) -> Outcome {
        self.pb_path(args, true)
    }

    /// `pocketbench ARGS` started as `pb` runs it (fakes on PATH), not waited for; its
    /// stdout and stderr piped. It leads a process group of its own, as a shell's foreground
    /// job does: `kill(-pid, SIGINT)` is a Ctrl-C at the terminal, reaching every process of
    /// the group.
    pub fn spawn(&self, args: &[&str]) -> std::process::Child {
        use std::os::unix::process::CommandExt;
        let system = std::env::var("PATH").unwrap_or_default();
        std::process::Command::new(super::BIN)
            .process_group(0)
            .args(args)
            .current_dir(self.path("host"))
            .env_remove("RUST_BACKTRACE")
            .env("PATH", format!("{}:{system}", fakes().display()))
            .env("FAKE_DEVICE_ROOT", self.root.path())
            .env("HOME", self.path("home"))
            .env_remove("ANDROID_SERIAL")
            .env_remove("POCKETBENCH_DEVICES")
            .env_remove("XDG_CONFIG_HOME")
            .env_remove("POCKETBENCH_DEVICE_BINARIES")
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("starting pocketbench")
    }

    /// `device run --poll 20ms --patience 0s BEFORE -- COMMAND`.
    pub fn device_run(&self, before: &[&str], command: &[&str]) -> Outcome {
        let mut args = vec!["device", "run", "--poll", "20ms", "--patience", "0s"];
        args.extend_from_slice(before);
        args.push("--");
        args.extend_from_slice(command);
        self.pb(&args)
    }
}

/// A short run for a device job.
pub const SHORT_RUN: &[&str] = &[
    "run",
    "--records",
    "50",
    "--ops",
    "100",
    "--delay",
    "zero",
    "--no-overhead",
];

/// The runs in a store, with each summary's `device` (null when absent).
pub fn runs_with_device(store: &Path) -> Vec<(i64, serde_json::Value)> {
    let conn = super::store(store);
    let mut stmt = conn
        .prepare("SELECT id, json_extract(summary, '$.device') FROM runs ORDER BY id")
        .unwrap();
    stmt.query_map([], |r| {
        let id: i64 = r.get(0)?;
        let dev: Option<String> = r.get(1)?;
        Ok((
            id,
            dev.map_or(serde_json::Value::Null, |d| {
                serde_json::from_str(&d).unwrap()
            }),
        ))
    })
    .unwrap()
    .collect::<Result<_, _>>()
    .unwrap()
}

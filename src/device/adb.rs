//! Android devices over adb: the device list (`adb devices -l`, parsed as adb prints it), the
//! choice of one device, and the [`Transport`] through `adb -s SERIAL shell|push|pull`.
//! Every adb process runs in a process group of its own ([`transport::Detached`]): a Ctrl-C
//! reaches pocketbench, which decides what it means, and not an adb call half done.
//! Jobs live in `/data/local/tmp/pocketbench` by default: the data partition, where apps keep
//! their databases, and the one directory a non-root shell may write and execute from.

use super::transport::{self, Lost, Reach, Shell, Transport};
use crate::error::{Error, Result};
use crate::limits::escape;
use std::path::Path;
use std::process::Command;

/// Where pocketbench works on an Android device unless `--dir` says otherwise.
pub const DEFAULT_DIR: &str = "/data/local/tmp/pocketbench";

const INSTALL: &str =
    "install Android's platform tools (Debian: apt install adb) or put adb on PATH";

/// One line of `adb devices -l`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Listed {
    pub serial: String,
    /// `device` (ready), `unauthorized`, `offline`, `no permissions`, `recovery`, …
    pub state: String,
    /// `model:` as adb reports it (underscores for spaces), when given.
    pub model: Option<String>,
    /// `product:`, when given.
    pub product: Option<String>,
}

impl Listed {
    /// What to do about a device that is attached but not usable; `None` when it is ready.
    pub fn problem(&self) -> Option<String> {
        let s = escape(&self.serial);
        match self.state.as_str() {
            "device" => None,
            "unauthorized" => Some(format!(
                "adb device {s} is unauthorized: unlock the phone and accept the \"Allow USB debugging\" prompt"
            )),
            "offline" => Some(format!(
                "adb device {s} is offline: reconnect the cable, or restart adb with `adb kill-server`"
            )),
            "no permissions" => Some(format!(
                "adb device {s}: no permission to open the USB device (udev rules: see https://developer.android.com/studio/run/device)"
            )),
            other => Some(format!(
                "adb device {s} is in state {}, not booted for debugging",
                escape(other)
            )),
        }
    }
}

/// Parse the output of `adb devices -l` (or plain `adb devices`): the header line, daemon
/// start-up notes (`* daemon …`) and blank lines are skipped; each device line is the serial,
/// its state (`no permissions` is two words, followed by adb's explanation) and `key:value`
/// properties.
pub fn parse_devices(text: &str) -> Vec<Listed> {
    let mut out = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with("List of devices") || line.starts_with('*') {
            continue;
        }
        let mut words = line.split_whitespace();
        let Some(serial) = words.next() else { continue };
        let rest: Vec<&str> = words.collect();
        let Some(first) = rest.first() else { continue };
        let state = if *first == "no" && rest.get(1) == Some(&"permissions") {
            "no permissions".to_string()
        } else {
            first.to_string()
        };
        let prop = |key: &str| {
            rest.iter()
                .find_map(|w| w.strip_prefix(key).and_then(|v| v.strip_prefix(':')))
                .map(str::to_string)
        };
        out.push(Listed {
            serial: serial.to_string(),
            state,
            model: prop("model"),
            product: prop("product"),
        });
        if out.len() >= 1024 {
            break;
        }
    }
    out
}

/// Every device adb sees.
pub fn list() -> Reach<Vec<Listed>> {
    let out = transport::run_detached(Command::new("adb").args(["devices", "-l"]), "adb", INSTALL)?;
    if !out.status.success() {
        return Err(Lost(format!(
            "adb devices: {}",
            transport::tool_message(&out)
        )));
    }
    Ok(parse_devices(&String::from_utf8_lossy(&out.stdout)))
}

/// A ready adb device.
pub struct Adb {
    serial: String,
    dir: Option<String>,
}

impl Adb {
    /// The device with `serial`, or the only attached one; one clear error for every way this
    /// can fail (adb missing, no device, several, the named one absent, not ready).
    pub fn select(serial: Option<&str>, dir: Option<String>) -> Result<Adb> {
        let devices = list().map_err(|Lost(m)| Error::input(m))?;
        let chosen = match serial {
            Some(s) => devices.iter().find(|d| d.serial == s).ok_or_else(|| {
                Error::input(format!(
                    "adb device {} is not attached (adb devices lists {})",
                    escape(s),
                    if devices.is_empty() {
                        "none".to_string()
                    } else {
                        devices.iter().map(|d| escape(&d.serial)).collect::<Vec<_>>().join(", ")
                    }
                ))
            })?,
            None => match devices.as_slice() {
                [] => {
                    return Err(Error::input(
                        "no adb device attached (adb devices lists none): connect a phone with USB debugging enabled, or name an ssh target with --ssh user@host",
                    ))
                }
                [one] => one,
                several => {
                    return Err(Error::input(format!(
                        "{} adb devices attached ({}): choose one with --serial",
                        several.len(),
                        several.iter().map(|d| escape(&d.serial)).collect::<Vec<_>>().join(", ")
                    )))
                }
            },
        };
        if let Some(problem) = chosen.problem() {
            return Err(Error::input(problem));
        }
        Ok(Adb {
            serial: chosen.serial.clone(),
            dir,
        })
    }

    /// A device of [`list`] that is ready (`state` `device`).
    pub fn attached(serial: &str, dir: Option<String>) -> Adb {
        Adb {
            serial: serial.to_string(),
            dir,
        }
    }

    fn adb(&self) -> Command {
        let mut c = Command::new("adb");
        c.arg("-s").arg(&self.serial);
        c
    }

    /// Run `script` with `adb exec-out`, whose output is the device's bytes as they are (no
    /// pty, no line-ending translation: a binary file comes through whole), into `local`; the
    /// script's exit status. The device command's stderr comes on the same stream, so `script`
    /// must send it elsewhere.
    pub fn exec_out(&self, script: &str, local: &Path) -> Result<i32> {
        use std::io::{Read, Seek, SeekFrom};
        let what = |e: std::io::Error| Error::failed(format!("{}: {e}", local.display()));
        let mut file = std::fs::File::options()
            .create(true)
            .truncate(true)
            .read(true)
            .write(true)
            .open(local)
            .map_err(what)?;
        let mut cmd = self.adb();
        cmd.arg("exec-out")
            .arg(transport::with_status(script))
            .stdout(file.try_clone().map_err(what)?)
            .stderr(std::process::Stdio::piped());
        let out = transport::Detached::start(&mut cmd, "adb", INSTALL)?
            .output()
            .map_err(|e| Error::failed(format!("adb exec-out: {e}")))?;
        let len = file.metadata().map_err(what)?.len();
        let from = len.saturating_sub(64);
        let mut tail = Vec::new();
        file.seek(SeekFrom::Start(from)).map_err(what)?;
        file.read_to_end(&mut tail).map_err(what)?;
        let Some((at, rc)) = transport::trailing_status(&tail) else {
            return Err(self.lost("exec-out", &out).into());
        };
        file.set_len(from + at as u64).map_err(what)?;
        Ok(rc)
    }

    /// `adb logcat ARGS` writing to `out` as the device logs, its own messages to `err`, until
    /// dropped (or killed by the signal handling).
    pub fn logcat(
        &self,
        args: &[&str],
        out: std::fs::File,
        err: std::fs::File,
    ) -> Reach<transport::Detached> {
        let mut cmd = self.adb();
        cmd.arg("logcat").args(args).stdout(out).stderr(err);
        transport::Detached::start(&mut cmd, "adb", INSTALL)
    }

    fn lost(&self, what: &str, out: &std::process::Output) -> Lost {
        Lost(format!(
            "adb device {}: {what}: {}",
            escape(&self.serial),
            transport::tool_message(out)
        ))
    }
}

/// The adb device behind `t`, for what only adb offers (`exec-out`, `logcat`).
pub fn of(t: &dyn Transport) -> Option<&Adb> {
    t.as_any().downcast_ref::<Adb>()
}

impl Transport for Adb {
    fn name(&self) -> String {
        format!("adb:{}", self.serial)
    }

    fn selector(&self) -> Vec<String> {
        let mut args = vec!["--serial".to_string(), self.serial.clone()];
        if let Some(d) = &self.dir {
            args.extend(["--dir".to_string(), d.clone()]);
        }
        args
    }

    fn kind(&self) -> &'static str {
        "adb"
    }

    fn dir(&self) -> String {
        self.dir.clone().unwrap_or_else(|| DEFAULT_DIR.to_string())
    }

    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn shell(&self, script: &str) -> Reach<Shell> {
        let out = transport::run_detached(
            self.adb().arg("shell").arg(transport::with_status(script)),
            "adb",
            INSTALL,
        )?;
        transport::split_status(&out).ok_or_else(|| self.lost("shell", &out))
    }

    fn push(&self, local: &Path, remote: &str) -> Reach<()> {
        let out = transport::run_detached(
            self.adb().arg("push").arg(local).arg(remote),
            "adb",
            INSTALL,
        )?;
        if out.status.success() {
            Ok(())
        } else {
            Err(self.lost(&format!("push to {}", escape(remote)), &out))
        }
    }

    fn pull(&self, remote: &str, local: &Path) -> Reach<()> {
        let out = transport::run_detached(
            self.adb().arg("pull").arg(remote).arg(local),
            "adb",
            INSTALL,
        )?;
        if out.status.success() {
            Ok(())
        } else {
            Err(self.lost(&format!("pull of {}", escape(remote)), &out))
        }
    }
}

#[cfg(test)]
mod tests {
    //! `adb devices -l` as adb prints it (serial padded to 22 columns, then the state and the
    //! `-l` properties; `no permissions` with adb's explanation).
    use super::*;

    #[test]
    fn parses_every_state_adb_prints() {
        let text = "* daemon not running; starting now at tcp:5037\n* daemon started successfully\nList of devices attached\n\
0123456789ABCDEF       device usb:1-1 product:oriole model:Pixel_6 device:oriole transport_id:1\n\
emulator-5554          unauthorized transport_id:2\n\
R58M1234               no permissions (missing udev rules? user is in the plugdev group); see [http://developer.android.com/tools/device.html] usb:1-2 transport_id:3\n\
192.168.1.9:5555       offline transport_id:4\n\n";
        let d = parse_devices(text);
        assert_eq!(d.len(), 4);
        assert_eq!(d[0].serial, "0123456789ABCDEF");
        assert_eq!(d[0].state, "device");
        assert_eq!(d[0].model.as_deref(), Some("Pixel_6"));
        assert_eq!(d[0].product.as_deref(), Some("oriole"));
        assert!(d[0].problem().is_none());
        assert_eq!(d[1].state, "unauthorized");
        assert!(d[1].problem().unwrap().contains("Allow USB debugging"));
        assert_eq!(d[2].state, "no permissions");
        assert_eq!(d[3].serial, "192.168.1.9:5555");
        assert!(d[3].problem().unwrap().contains("offline"));
    }

    #[test]
    fn plain_adb_devices_has_tabs_and_no_properties() {
        let d = parse_devices("List of devices attached\nabc\tdevice\n");
        assert_eq!(
            d,
            vec![Listed {
                serial: "abc".into(),
                state: "device".into(),
                model: None,
                product: None
            }]
        );
    }
}

//! Phones and boards as measurement targets (`pocketbench device`): reaching them over adb or
//! ssh ([`transport`], one file per binding: [`adb`], [`ssh`]), finding out what they are
//! ([`probe`]), and running a pocketbench command on them as a detached job whose results store
//! comes back to the host and is merged into the local store tagged with the device's identity
//! ([`job`], [`collect`]), and capturing an Android app's SQL there ([`capture`], with root in
//! either form phones offer it: [`su`]). The device binary is one of the static builds of
//! `scripts/build-device.sh`, chosen by the device's ABI ([`binaries`]).
//!
//! Everything here drives the system's own `adb`, `ssh` and `scp` as child processes; nothing
//! on the device needs installing besides the pushed binary, and the device never calls back.
//!
//! Driving devices is the default feature `device-driver`; the device builds leave it out (a
//! phone or board is driven, it drives nothing), and there `pocketbench device` is refused
//! ([`unavailable`]) before any work. [`probe::local`] (a device describing itself, for
//! `submit` and `agent`) is in every build.

/// Whether this build drives devices (feature `device-driver`).
pub const AVAILABLE: bool = cfg!(feature = "device-driver");

/// Why `pocketbench device` is refused by a build without the feature `device-driver`.
pub fn unavailable() -> crate::error::Error {
    crate::error::Error::not_built("device", "device-driver", "adb and ssh device driver")
}

pub mod adb;
pub mod binaries;
pub mod capture;
pub mod collect;
pub mod config;
pub mod job;
pub mod outputs;
pub mod probe;
pub mod ssh;
pub mod su;
pub mod transport;

use crate::error::{Error, Result};
use transport::Transport;

/// How the user named the device to use.
#[derive(Clone, Debug, Default)]
pub struct Selector {
    /// A configured ssh target's name or an adb serial (positional TARGET).
    pub target: Option<String>,
    /// `--serial`: an adb serial (also ANDROID_SERIAL, as adb itself reads it).
    pub serial: Option<String>,
    /// `--ssh user@host[:port]`.
    pub ssh: Option<String>,
    /// `--dir`: the working directory on the device instead of the transport's default.
    pub dir: Option<String>,
    /// `--devices FILE`: the ssh targets file instead of the default one.
    pub devices_file: Option<std::path::PathBuf>,
}

/// Where ssh targets come from and which there are, for an error naming a target that is not one.
fn configured_targets(c: &config::Devices) -> String {
    let file = if c.source.is_empty() {
        "the devices file (~/.config/pocketbench/devices.toml)".to_string()
    } else {
        c.source.clone()
    };
    if c.ssh.is_empty() {
        format!("{file} (there is none there: docs/device.md says how to configure one)")
    } else {
        let names = c.ssh.keys().cloned().collect::<Vec<_>>().join(", ");
        format!("{file} ({names})")
    }
}

/// Resolve `sel` to one reachable device: a configured ssh target or `--ssh` destination, or
/// the adb device named by serial, or the only attached adb device.
pub fn select(sel: &Selector) -> Result<Box<dyn Transport>> {
    if let Some(dest) = &sel.ssh {
        let target = ssh::SshTarget::from_flag(dest, sel.dir.clone())?;
        return Ok(Box::new(ssh::Ssh::new(target)));
    }
    let configured = config::load(sel.devices_file.as_deref())?;
    // The tags results carry (`adb:SERIAL`, `ssh:NAME (…)`, `ssh:user@host`) select too.
    let mut sel = sel.clone();
    match sel.target.as_deref().map(|t| t.split_once(':')) {
        Some(Some(("adb", serial))) if sel.serial.is_none() => {
            sel.serial = Some(serial.to_string());
            sel.target = None;
        }
        Some(Some(("ssh", rest))) => {
            let name = rest.split(" (").next().unwrap_or(rest).to_string();
            if configured.ssh.contains_key(&name) {
                sel.target = Some(name);
            } else {
                sel.ssh = Some(name);
                sel.target = None;
                return select(&sel);
            }
        }
        _ => {}
    }
    if let Some(name) = &sel.target {
        if let Some(t) = configured.ssh.get(name) {
            return Ok(Box::new(ssh::Ssh::configured(
                name,
                t.clone(),
                sel.devices_file.clone(),
                sel.dir.clone(),
            )));
        }
    }
    let serial = sel
        .serial
        .clone()
        .or_else(|| sel.target.clone())
        .or_else(|| {
            std::env::var("ANDROID_SERIAL")
                .ok()
                .filter(|s| !s.is_empty())
        });
    let adb =
        adb::Adb::select(serial.as_deref(), sel.dir.clone()).map_err(|e| match &sel.target {
            Some(name) if sel.serial.is_none() => Error::input(format!(
                "device {}: neither an ssh target of {} nor an attached adb device: {e}",
                crate::limits::escape(name),
                configured_targets(&configured),
            )),
            _ => e,
        })?;
    Ok(Box::new(adb))
}

/// The command that collects `t`'s jobs into `store`, ready to paste.
pub fn pull_command(t: &dyn Transport, store: &std::path::Path) -> String {
    let mut args: Vec<String> = ["pocketbench", "device", "pull"].map(String::from).into();
    args.extend(t.selector());
    if store != std::path::Path::new("pocketbench.db") {
        args.extend(["--results".to_string(), store.display().to_string()]);
    }
    args.iter()
        .map(|a| sh_quote(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Quote `s` for a POSIX shell: single quotes, with each embedded quote closed, escaped and
/// reopened.
pub fn sh_quote(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./=:,+@%".contains(&b))
    {
        return s.to_string();
    }
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[cfg(test)]
mod tests {
    use super::sh_quote;

    #[test]
    fn quoting_survives_a_real_shell() {
        for s in [
            "plain",
            "",
            "two words",
            "it's",
            "$HOME `x` \"q\" \\",
            "a\nb",
        ] {
            let out = std::process::Command::new("sh")
                .arg("-c")
                .arg(format!("printf %s {}", sh_quote(s)))
                .output()
                .unwrap();
            assert_eq!(String::from_utf8(out.stdout).unwrap(), s);
        }
    }
}

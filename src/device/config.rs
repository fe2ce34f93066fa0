//! The ssh targets file: named boards that `device list` shows and `device run NAME` reaches.
//! TOML, one table per target under `ssh`:
//!
//! ```toml
//! [ssh.pi]
//! host = "pi@raspberrypi.local"
//! port = 22                         # optional
//! identity_file = "/home/me/.ssh/pi" # optional
//! dir = "/home/pi/pocketbench"      # optional; default: pocketbench in the login directory
//! ```
//!
//! Read from `--devices FILE`, else `POCKETBENCH_DEVICES`, else
//! `$XDG_CONFIG_HOME/pocketbench/devices.toml` (`~/.config/…`); a missing default file means no
//! ssh targets. At most [`MAX_FILE`] bytes and [`MAX_TARGETS`] targets.

use super::ssh::{check_host, SshTarget};
use crate::error::{Error, Result};
use crate::limits;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub const MAX_FILE: u64 = 64 << 10;
pub const MAX_TARGETS: usize = 256;

#[derive(Debug, Default)]
pub struct Devices {
    pub ssh: BTreeMap<String, SshTarget>,
    /// Where they came from, for messages.
    pub source: String,
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    #[serde(default)]
    ssh: BTreeMap<String, SshTarget>,
}

fn default_path() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("POCKETBENCH_DEVICES").filter(|p| !p.is_empty()) {
        return Some(PathBuf::from(p));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|p| !p.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("pocketbench/devices.toml"))
}

/// The configured ssh targets (none when no file is named and the default one is absent).
pub fn load(explicit: Option<&Path>) -> Result<Devices> {
    let (path, named) = match explicit {
        Some(p) => (p.to_path_buf(), true),
        None => match default_path() {
            Some(p) => (p, std::env::var_os("POCKETBENCH_DEVICES").is_some()),
            None => return Ok(Devices::default()),
        },
    };
    if !named && !path.exists() {
        return Ok(Devices {
            ssh: BTreeMap::new(),
            source: path.display().to_string(),
        });
    }
    let what = format!("devices file {}", path.display());
    let text = limits::read_text(&path, &what, MAX_FILE)?;
    let mut devices = parse(&text).map_err(|e| Error::input(format!("{what}: {e}")))?;
    devices.source = path.display().to_string();
    Ok(devices)
}

/// Parse the text of a devices file.
pub fn parse(text: &str) -> std::result::Result<Devices, String> {
    let file: File = toml::from_str(text).map_err(|e| e.message().to_string())?;
    if file.ssh.len() > MAX_TARGETS {
        return Err(format!(
            "{} ssh targets; at most {MAX_TARGETS}",
            file.ssh.len()
        ));
    }
    for (name, t) in &file.ssh {
        if name.is_empty() || name.len() > 64 {
            return Err(format!(
                "ssh target name {}: 1 to 64 characters",
                limits::escape(name)
            ));
        }
        check_host(&t.host).map_err(|why| {
            format!(
                "ssh.{}.host {}: {why}",
                limits::escape(name),
                limits::escape(&t.host)
            )
        })?;
        if t.dir
            .as_deref()
            .is_some_and(|d| d.is_empty() || d.contains('\0'))
        {
            return Err(format!(
                "ssh.{}.dir: empty or contains NUL",
                limits::escape(name)
            ));
        }
    }
    Ok(Devices {
        ssh: file.ssh,
        source: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_targets_and_names_what_is_wrong() {
        let d = parse(
            "[ssh.pi]\nhost = \"pi@raspberrypi.local\"\nport = 2222\ndir = \"/home/pi/pb\"\n",
        )
        .unwrap();
        let pi = &d.ssh["pi"];
        assert_eq!(
            (pi.host.as_str(), pi.port, pi.dir.as_deref()),
            ("pi@raspberrypi.local", Some(2222), Some("/home/pi/pb"))
        );
        let e = parse("[ssh.pi]\nhost = \"-oProxyCommand=evil\"\n").unwrap_err();
        assert!(
            e.starts_with("ssh.\"pi\".host \"-oProxyCommand=evil\": "),
            "{e}"
        );
        assert!(parse("[ssh.pi]\nhots = \"x\"\n")
            .unwrap_err()
            .contains("hots"));
        assert!(parse("[ssh.pi]\nhost = \"pi@h\"\nport = 70000\n").is_err());
        assert!(parse("").unwrap().ssh.is_empty());
    }
}

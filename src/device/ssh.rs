//! Boards over ssh (a Raspberry Pi, a dev board): the [`Transport`] through the system's `ssh`
//! and `scp`, non-interactive (BatchMode: keys or an agent only, never a password prompt), with
//! a connect timeout and keep-alives so a dead link is noticed instead of hanging.

use super::transport::{self, Lost, Reach, Shell, Transport};
use crate::error::{Error, Result};
use crate::limits::escape;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Where pocketbench works on an ssh target unless configured otherwise: relative to the
/// login directory.
pub const DEFAULT_DIR: &str = "pocketbench";

const INSTALL: &str = "install OpenSSH's client (Debian: apt install openssh-client)";

/// An ssh destination and how to reach it.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct SshTarget {
    /// `user@host` (or a Host alias of ~/.ssh/config).
    pub host: String,
    pub port: Option<u16>,
    /// A private key file (`ssh -i`).
    pub identity_file: Option<PathBuf>,
    /// Working directory on the target (default `pocketbench` in the login directory).
    pub dir: Option<String>,
}

impl SshTarget {
    /// `--ssh user@host[:port]`.
    pub fn from_flag(value: &str, dir: Option<String>) -> Result<SshTarget> {
        let bad = |why: &str| Error::input(format!("--ssh {}: {why}", escape(value)));
        let (host, port) = match value.rsplit_once(':') {
            Some((h, p)) if !h.contains(':') => (
                h,
                Some(
                    p.parse::<u16>()
                        .map_err(|_| bad("the port is not a number from 1 to 65535"))?,
                ),
            ),
            _ => (value, None),
        };
        check_host(host).map_err(|why| bad(&why))?;
        Ok(SshTarget {
            host: host.to_string(),
            port,
            identity_file: None,
            dir,
        })
    }
}

/// A destination ssh would read as an option or that a shell would split is refused.
pub fn check_host(host: &str) -> std::result::Result<(), String> {
    if host.is_empty() || host.len() > 255 {
        return Err("expected user@host".into());
    }
    if host.starts_with('-') {
        return Err("a destination cannot start with '-'".into());
    }
    if !host
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"@._-[]%".contains(&b))
    {
        return Err("only letters, digits and @ . _ - [ ] % are allowed in user@host".into());
    }
    Ok(())
}

pub struct Ssh {
    target: SshTarget,
    /// The configured target's name and the devices file it came from (when not the default),
    /// or none for `--ssh`.
    label: Option<(String, Option<PathBuf>)>,
    /// `--dir` given on the command line.
    dir_flag: Option<String>,
}

impl Ssh {
    /// An `--ssh user@host[:port]` destination.
    pub fn new(target: SshTarget) -> Ssh {
        let dir_flag = target.dir.clone();
        Ssh {
            target,
            label: None,
            dir_flag,
        }
    }

    /// The target configured as `name` (in `file`, when not the default devices file), its
    /// directory overridden by `dir_flag`.
    pub fn configured(
        name: &str,
        mut target: SshTarget,
        file: Option<PathBuf>,
        dir_flag: Option<String>,
    ) -> Ssh {
        if dir_flag.is_some() {
            target.dir = dir_flag.clone();
        }
        Ssh {
            target,
            label: Some((name.to_string(), file)),
            dir_flag,
        }
    }

    /// `user@host`, with `:port` when one is set.
    fn address(&self) -> String {
        match self.target.port {
            Some(p) => format!("{}:{p}", self.target.host),
            None => self.target.host.clone(),
        }
    }

    fn common(&self, cmd: &mut Command, port_flag: &str) {
        cmd.args(["-o", "BatchMode=yes", "-o", "ConnectTimeout=15"]);
        cmd.args([
            "-o",
            "ServerAliveInterval=15",
            "-o",
            "ServerAliveCountMax=4",
        ]);
        if let Some(p) = self.target.port {
            cmd.arg(port_flag).arg(p.to_string());
        }
        if let Some(id) = &self.target.identity_file {
            cmd.arg("-i").arg(id);
        }
    }

    fn lost(&self, what: &str, out: &std::process::Output) -> Lost {
        Lost(format!(
            "ssh {}: {what}: {}",
            escape(&self.target.host),
            transport::tool_message(out)
        ))
    }

    fn scp(&self, from: &str, to: &str, what: &str) -> Reach<()> {
        let mut cmd = Command::new("scp");
        cmd.args(["-B", "-q"]);
        self.common(&mut cmd, "-P");
        cmd.arg("--").arg(from).arg(to);
        let out = transport::run_tool(&mut cmd, "scp", INSTALL)?;
        if out.status.success() {
            Ok(())
        } else {
            Err(self.lost(what, &out))
        }
    }
}

impl Transport for Ssh {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }

    fn name(&self) -> String {
        match &self.label {
            Some((name, _)) => format!("ssh:{name} ({})", self.address()),
            None => format!("ssh:{}", self.address()),
        }
    }

    fn selector(&self) -> Vec<String> {
        let mut args = match &self.label {
            Some((name, file)) => {
                let mut a = vec![name.clone()];
                if let Some(f) = file {
                    a.extend(["--devices".to_string(), f.display().to_string()]);
                }
                a
            }
            None => vec!["--ssh".to_string(), self.address()],
        };
        if let Some(d) = &self.dir_flag {
            args.extend(["--dir".to_string(), d.clone()]);
        }
        args
    }

    fn kind(&self) -> &'static str {
        "ssh"
    }

    fn dir(&self) -> String {
        self.target
            .dir
            .clone()
            .unwrap_or_else(|| DEFAULT_DIR.to_string())
    }

    fn shell(&self, script: &str) -> Reach<Shell> {
        let mut cmd = Command::new("ssh");
        cmd.arg("-T");
        self.common(&mut cmd, "-p");
        // The login shell may not be sh: hand the script to sh explicitly.
        cmd.arg("--").arg(&self.target.host).arg(format!(
            "sh -c {}",
            super::sh_quote(&transport::with_status(script))
        ));
        let out = transport::run_tool(&mut cmd, "ssh", INSTALL)?;
        transport::split_status(&out).ok_or_else(|| self.lost("shell", &out))
    }

    fn push(&self, local: &Path, remote: &str) -> Reach<()> {
        let from = local.to_string_lossy();
        self.scp(
            &from,
            &format!("{}:{remote}", self.target.host),
            &format!("copy to {}", escape(remote)),
        )
    }

    fn pull(&self, remote: &str, local: &Path) -> Reach<()> {
        let to = local.to_string_lossy();
        self.scp(
            &format!("{}:{remote}", self.target.host),
            &to,
            &format!("copy of {}", escape(remote)),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_takes_an_optional_port_and_refuses_option_lookalikes() {
        let t = SshTarget::from_flag("pi@raspberrypi.local:2222", None).unwrap();
        assert_eq!(
            (t.host.as_str(), t.port),
            ("pi@raspberrypi.local", Some(2222))
        );
        assert_eq!(
            SshTarget::from_flag("pi@10.0.0.2", None).unwrap().port,
            None
        );
        for bad in ["-oProxyCommand=x", "pi@host:99999", "pi@host;rm", "", "a b"] {
            let e = SshTarget::from_flag(bad, None).unwrap_err().to_string();
            assert!(e.starts_with("--ssh "), "{e}");
        }
    }
}

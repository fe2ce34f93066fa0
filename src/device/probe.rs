//! What a device is, found by one POSIX shell script run on it (Android's toybox and mksh,
//! busybox and GNU userlands alike): model, SoC, ABI, kernel, OS, root, SELinux, governors,
//! core layout, and the block device, model, file system and free space behind the working
//! directory. The script prints `key=value` lines; [`parse`] turns them into [`DeviceInfo`],
//! which `device list` prints and every merged run carries as its `device`.

use super::transport::Transport;
use crate::error::Result;
use crate::limits::one_line;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The most `key=value` lines and the longest value read back from the probe.
pub const MAX_LINES: usize = 256;
pub const MAX_VALUE: usize = 1024;

/// The CPU architecture a device binary is built for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Arch {
    Aarch64,
    Armv7,
    X86_64,
}

impl Arch {
    pub fn name(self) -> &'static str {
        match self {
            Arch::Aarch64 => "aarch64",
            Arch::Armv7 => "armv7",
            Arch::X86_64 => "x86_64",
        }
    }

    /// From Android's `ro.product.cpu.abi` (preferred: it is the userland's) or `uname -m`.
    pub fn from_abi(abi: &str) -> Option<Arch> {
        match abi {
            "arm64-v8a" | "aarch64" | "arm64" => Some(Arch::Aarch64),
            "armeabi-v7a" | "armv7l" | "armv8l" | "armhf" => Some(Arch::Armv7),
            "x86_64" | "amd64" => Some(Arch::X86_64),
            _ => None,
        }
    }
}

#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct Storage {
    /// The working directory, resolved (or its nearest existing parent).
    pub dir: String,
    pub mount: String,
    pub block_device: String,
    /// The whole disk behind it (`mmcblk0`, `sda`), through device-mapper and partitions.
    pub disk: String,
    /// The disk's model (`model` of SCSI/UFS, `name` of eMMC/SD), when readable.
    pub disk_model: String,
    pub disk_type: String,
    pub file_system: String,
    pub mount_options: String,
    pub free_bytes: Option<u64>,
    /// Mounted `noexec`: a binary cannot run from there.
    pub noexec: bool,
}

/// Deserialised from the `device` a pulled run carries (`submit` reads it back).
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(default)]
pub struct DeviceInfo {
    /// `adb:SERIAL` or `ssh:user@host`.
    pub target: String,
    pub transport: String,
    pub model: String,
    pub manufacturer: String,
    pub soc: String,
    /// Android's ABI, else `uname -m`.
    pub abi: String,
    pub arch: Option<Arch>,
    pub kernel: String,
    pub os: String,
    pub cpus: Option<u32>,
    /// Cores by maximum frequency, e.g. `4×1.80 GHz + 4×2.42 GHz` (big.LITTLE).
    pub core_layout: String,
    /// `root` (the shell is root), `su` (root through su) or `none`.
    pub root: String,
    pub selinux: String,
    pub governor: String,
    /// `writable`, `via su`, `read-only` or `absent` (no cpufreq).
    pub governors: String,
    pub storage: Storage,
}

/// The probe script for working directory `dir`.
pub fn script(dir: &str) -> String {
    format!(
        r#"D={dir}
kv() {{ printf '%s=%s\n' "$1" "$(printf '%s' "$2" | tr '\n\r' '  ')"; }}
gp() {{ command -v getprop >/dev/null 2>&1 && getprop "$1"; }}
kv model "$(gp ro.product.model)"
kv manufacturer "$(gp ro.product.manufacturer)"
kv android "$(gp ro.build.version.release)"
kv sdk "$(gp ro.build.version.sdk)"
kv soc_vendor "$(gp ro.soc.manufacturer)"
kv soc_model "$(gp ro.soc.model)"
kv board_platform "$(gp ro.board.platform)"
kv abi "$(gp ro.product.cpu.abi)"
kv machine "$(uname -m)"
kv kernel "$(uname -r)"
kv dt_model "$(tr -d '\000' < /proc/device-tree/model 2>/dev/null)"
kv dmi_product "$(cat /sys/devices/virtual/dmi/id/product_name 2>/dev/null)"
kv os_release "$(sed -n 's/^PRETTY_NAME=//p' /etc/os-release 2>/dev/null | tr -d '"')"
kv hardware "$(sed -n 's/^Hardware[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n 1)"
kv cpus "$(grep -c '^processor' /proc/cpuinfo 2>/dev/null)"
kv maxfreqs "$(cat /sys/devices/system/cpu/cpu[0-9]*/cpufreq/cpuinfo_max_freq 2>/dev/null)"
kv uid "$(id -u)"
su_ok=no
if [ "$(id -u)" != 0 ] && command -v su >/dev/null 2>&1; then [ "$(su -c 'id -u' 2>/dev/null </dev/null)" = 0 ] && su_ok=yes; fi
kv su "$su_ok"
se=$(getenforce 2>/dev/null)
[ -n "$se" ] || {{ e=$(cat /sys/fs/selinux/enforce 2>/dev/null) && {{ [ "$e" = 1 ] && se=Enforcing || se=Permissive; }}; }}
kv selinux "$se"
g=/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor
kv governor "$(cat $g 2>/dev/null)"
kv governor_writable "$(if [ ! -e $g ]; then echo absent; elif [ -w $g ]; then echo yes; else echo no; fi)"
d=$D
while [ ! -e "$d" ] && [ "$d" != / ] && [ "$d" != . ]; do d=$(dirname "$d"); done
d=$(cd "$d" 2>/dev/null && pwd -P)
kv dir "$d"
best=; bdev=; bfs=; bopts=
while read -r dev mnt fs opts rest; do
  case "$d/" in "${{mnt%/}}/"*) if [ ${{#mnt}} -ge ${{#best}} ]; then best=$mnt; bdev=$dev; bfs=$fs; bopts=$opts; fi;; esac
done < /proc/mounts
kv mount "$best"
kv block "$bdev"
kv fs "$bfs"
kv mount_options "$bopts"
set -- $(df -Pk "$d" 2>/dev/null | tail -n 1)
kv free_kb "$4"
b=$(readlink -f "$bdev" 2>/dev/null); [ -n "$b" ] || b=$bdev
n=${{b##*/}}; s=/sys/class/block/$n
for i in 1 2 3; do
  [ -d "$s/slaves" ] || break
  for x in "$s"/slaves/*; do [ -e "$x" ] && n=${{x##*/}} && s=/sys/class/block/$n && break; done
done
if [ -e "$s/partition" ]; then p=$(readlink -f "$s"); p=${{p%/*}}; n=${{p##*/}}; s=/sys/class/block/$n; fi
kv disk "$n"
kv disk_model "$(cat "$s/device/model" 2>/dev/null || cat "$s/device/name" 2>/dev/null)"
kv disk_type "$(cat "$s/device/type" 2>/dev/null)"
"#,
        dir = super::sh_quote(dir)
    )
}

/// Run the probe on this machine for directory `dir` (what `submit` and `agent` send as the
/// device a result was measured on). A probe that cannot run leaves every field empty.
pub fn local(dir: &str) -> DeviceInfo {
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg(script(dir))
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output();
    let mut info = parse(
        &out.map(|o| String::from_utf8_lossy(&o.stdout).into_owned())
            .unwrap_or_default(),
    );
    info.target = "local".into();
    info.transport = "local".into();
    info
}

/// Run the probe on `t` for its working directory.
pub fn probe(t: &dyn Transport) -> Result<DeviceInfo> {
    let out = super::transport::must(t, "probing the device", &script(&t.dir()))?;
    let mut info = parse(&out);
    info.target = t.name();
    info.transport = t.kind().to_string();
    Ok(info)
}

/// Turn the probe's `key=value` lines into a [`DeviceInfo`]. Unknown keys are ignored, values
/// are trimmed and cut at [`MAX_VALUE`] bytes, at most [`MAX_LINES`] lines are read.
pub fn parse(text: &str) -> DeviceInfo {
    let mut kv: BTreeMap<&str, String> = BTreeMap::new();
    for line in text.lines().take(MAX_LINES) {
        if let Some((k, v)) = line.split_once('=') {
            kv.insert(
                k.trim(),
                crate::limits::cut_bytes(v.trim(), MAX_VALUE).to_string(),
            );
        }
    }
    let get = |k: &str| kv.get(k).cloned().unwrap_or_default();
    let first = |keys: &[&str]| {
        keys.iter()
            .map(|k| get(k))
            .find(|v| !v.is_empty())
            .unwrap_or_default()
    };
    let abi = first(&["abi", "machine"]);
    let os = match (get("android"), get("sdk")) {
        (a, s) if !a.is_empty() && !s.is_empty() => format!("Android {a} (SDK {s})"),
        (a, _) if !a.is_empty() => format!("Android {a}"),
        _ => get("os_release"),
    };
    let soc = match (get("soc_vendor"), get("soc_model")) {
        (v, m) if !v.is_empty() && !m.is_empty() => format!("{v} {m}"),
        (_, m) if !m.is_empty() => m,
        _ => first(&["board_platform", "hardware"]),
    };
    let uid = get("uid");
    let root = if uid == "0" {
        "root"
    } else if get("su") == "yes" {
        "su"
    } else {
        "none"
    }
    .to_string();
    let governors = match get("governor_writable").as_str() {
        "yes" => "writable",
        "no" if root == "su" => "via su",
        "no" => "read-only",
        _ => "absent",
    }
    .to_string();
    let options = get("mount_options");
    DeviceInfo {
        target: String::new(),
        transport: String::new(),
        model: first(&["model", "dt_model", "dmi_product"]),
        manufacturer: get("manufacturer"),
        soc,
        // Android's ABI is the userland's (a 64-bit kernel may run a 32-bit one): trusted alone.
        arch: Arch::from_abi(&abi),
        abi,
        kernel: get("kernel"),
        os,
        cpus: get("cpus").parse().ok(),
        core_layout: core_layout(&get("maxfreqs")),
        root,
        selinux: get("selinux"),
        governor: get("governor"),
        governors,
        storage: Storage {
            dir: get("dir"),
            mount: get("mount"),
            block_device: get("block"),
            disk: get("disk"),
            disk_model: get("disk_model"),
            disk_type: get("disk_type"),
            file_system: get("fs"),
            noexec: options.split(',').any(|o| o == "noexec"),
            mount_options: options,
            free_bytes: get("free_kb")
                .parse::<u64>()
                .ok()
                .map(|k| k.saturating_mul(1024)),
        },
    }
}

/// `4×1.80 GHz + 4×2.42 GHz` from the cores' `cpuinfo_max_freq` values (kHz), slowest first.
fn core_layout(maxfreqs: &str) -> String {
    let mut by_freq: BTreeMap<u64, u32> = BTreeMap::new();
    for f in maxfreqs
        .split_whitespace()
        .filter_map(|w| w.parse::<u64>().ok())
        .take(4096)
    {
        *by_freq.entry(f).or_default() += 1;
    }
    by_freq
        .iter()
        .map(|(khz, n)| format!("{n}×{:.2} GHz", *khz as f64 / 1e6))
        .collect::<Vec<_>>()
        .join(" + ")
}

impl DeviceInfo {
    /// The lines `device list` prints under a device's name.
    pub fn describe(&self) -> Vec<(&'static str, String)> {
        let or_unknown = |s: &str| {
            if s.is_empty() {
                "unknown".to_string()
            } else {
                one_line(s)
            }
        };
        let s = &self.storage;
        let free = s
            .free_bytes
            .map(|b| format!(", {} free", crate::output::units::bytes(b)))
            .unwrap_or_default();
        let disk = match (s.disk.as_str(), s.disk_model.as_str()) {
            ("", _) => String::new(),
            (d, "") => format!(" on {}", one_line(d)),
            (d, m) => format!(
                " on {} ({}{})",
                one_line(d),
                one_line(m),
                if s.disk_type.is_empty() {
                    String::new()
                } else {
                    format!(", {}", one_line(&s.disk_type))
                }
            ),
        };
        vec![
            (
                "model",
                or_unknown(
                    [self.manufacturer.as_str(), self.model.as_str()]
                        .join(" ")
                        .trim(),
                ),
            ),
            ("soc", or_unknown(&self.soc)),
            (
                "abi",
                format!(
                    "{}{}",
                    or_unknown(&self.abi),
                    self.arch
                        .map_or(" (no pocketbench build for it)".to_string(), |a| format!(
                            " → {} binary",
                            a.name()
                        ))
                ),
            ),
            (
                "cores",
                match (self.cpus, self.core_layout.is_empty()) {
                    (Some(n), false) => format!("{n}: {}", self.core_layout),
                    (Some(n), true) => n.to_string(),
                    (None, _) => "unknown".into(),
                },
            ),
            ("kernel", or_unknown(&self.kernel)),
            ("os", or_unknown(&self.os)),
            (
                "root",
                match self.root.as_str() {
                    "root" => "yes (the shell is root)".to_string(),
                    "su" => "through su".to_string(),
                    _ => "no: governors and CPU sets are observed, not set".to_string(),
                },
            ),
            ("selinux", or_unknown(&self.selinux)),
            (
                "governors",
                format!("{} (now {})", self.governors, or_unknown(&self.governor)),
            ),
            (
                "storage",
                format!(
                    "{} on {} ({} {}{}{}){}",
                    or_unknown(&s.dir),
                    or_unknown(&s.mount),
                    or_unknown(&s.file_system),
                    or_unknown(&s.mount_options),
                    disk,
                    free,
                    if s.noexec {
                        " — mounted noexec: binaries cannot run there"
                    } else {
                        ""
                    }
                ),
            ),
        ]
    }
}

#[cfg(test)]
mod tests {
    //! The probe's output as a Pixel-like phone and a Raspberry Pi would print it, parsed by
    //! hand-worked expectations; and the script itself run by this machine's sh.
    use super::*;

    #[test]
    fn phone_output() {
        let text = "model=Pixel 6\nmanufacturer=Google\nandroid=14\nsdk=34\nsoc_vendor=Google\nsoc_model=Tensor\nabi=arm64-v8a\nmachine=aarch64\nkernel=5.10.157-android13\ncpus=8\nmaxfreqs=1803000 1803000 1803000 1803000 2253000 2253000 2802000 2802000\nuid=2000\nsu=yes\nselinux=Enforcing\ngovernor=sched_pixel\ngovernor_writable=no\ndir=/data/local/tmp\nmount=/data\nblock=/dev/block/dm-45\nfs=f2fs\nmount_options=rw,lazytime,nosuid,nodev,noatime\nfree_kb=1000\ndisk=sda\ndisk_model=KLUDG4UHDC-B0E1\ndisk_type=0\n";
        let d = parse(text);
        assert_eq!(d.model, "Pixel 6");
        assert_eq!(d.soc, "Google Tensor");
        assert_eq!(d.arch, Some(Arch::Aarch64));
        assert_eq!(d.os, "Android 14 (SDK 34)");
        assert_eq!(d.core_layout, "4×1.80 GHz + 2×2.25 GHz + 2×2.80 GHz");
        assert_eq!((d.root.as_str(), d.governors.as_str()), ("su", "via su"));
        assert_eq!(d.storage.free_bytes, Some(1_024_000));
        assert_eq!(d.storage.file_system, "f2fs");
        assert!(!d.storage.noexec);
    }

    #[test]
    fn board_output_without_android_properties() {
        let text = "model=\nabi=\nmachine=armv7l\ndt_model=Raspberry Pi 3 Model B Rev 1.2\nos_release=Raspbian GNU/Linux 11 (bullseye)\nhardware=BCM2835\nuid=1000\nsu=no\ngovernor_writable=no\nmount_options=rw,noexec,relatime\n";
        let d = parse(text);
        assert_eq!(d.model, "Raspberry Pi 3 Model B Rev 1.2");
        assert_eq!((d.abi.as_str(), d.arch), ("armv7l", Some(Arch::Armv7)));
        assert_eq!(d.soc, "BCM2835");
        assert_eq!(d.os, "Raspbian GNU/Linux 11 (bullseye)");
        assert_eq!(
            (d.root.as_str(), d.governors.as_str()),
            ("none", "read-only")
        );
        assert!(d.storage.noexec);
    }

    #[test]
    fn the_script_runs_in_this_machines_sh() {
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script("/nonexistent/dir"))
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let d = parse(&String::from_utf8_lossy(&out.stdout));
        assert!(!d.kernel.is_empty());
        assert_eq!(d.storage.dir, "/");
        assert_eq!(d.storage.mount, "/");
        assert!(d.storage.free_bytes.is_some());
    }
}
